/**
 * Which of two views of one peer or room is newer (docs/api.md, versions): every view carries `version`, the
 * server's clock when it was read. The ledger remembers the newest version seen per id, deletions included, so an
 * answer or a refetch that raced a push never brings back an older state.
 */

export interface Versioned {
  id: string;
  /** Absent from servers older than the field: such views are always taken. */
  version?: number;
}

export class VersionLedger {
  private readonly newest = new Map<string, { version: number; deleted: boolean }>();

  /** True when a view of `id` at `version` is not older than what was already seen. */
  isCurrent(id: string, version: number | undefined): boolean {
    if (version === undefined) return true;
    const seen = this.newest.get(id);
    return !seen || version >= seen.version;
  }

  /** Records a view (or a deletion); returns whether it is current, i.e. whether the caller should apply it. */
  note(id: string, version: number | undefined, deleted = false): boolean {
    if (!this.isCurrent(id, version)) return false;
    if (version !== undefined) this.newest.set(id, { version, deleted });
    return true;
  }

  /** Seen deleted at a version newer than `version`. */
  deletedSince(id: string, version: number | undefined): boolean {
    const seen = this.newest.get(id);
    return Boolean(seen?.deleted && (version === undefined || seen.version > version));
  }

  /** Seen (present) at a version newer than `version`. */
  presentSince(id: string, version: number): boolean {
    const seen = this.newest.get(id);
    return Boolean(seen && !seen.deleted && seen.version > version);
  }
}

/**
 * A freshly fetched list merged into what is shown: each fetched item unless a newer view of it (or its deletion)
 * was seen, in the fetched order; then the shown items the fetch lacks but that were seen after it was read (a
 * push that raced the read). An empty fetch tells no read time, so it is taken as it is.
 */
export function reconcileList<T extends Versioned>(shown: readonly T[], fetched: readonly T[], ledger: VersionLedger): T[] {
  const byId = new Map(shown.map((item) => [item.id, item]));
  const result: T[] = [];
  let readAt = -Infinity;
  for (const item of fetched) {
    if (item.version !== undefined) readAt = Math.max(readAt, item.version);
    if (ledger.deletedSince(item.id, item.version)) continue;
    const current = byId.get(item.id);
    if (ledger.note(item.id, item.version) || !current) result.push(item);
    else result.push(current);
  }
  const fetchedIds = new Set(fetched.map((item) => item.id));
  for (const item of shown) {
    if (!fetchedIds.has(item.id) && readAt > -Infinity && ledger.presentSince(item.id, readAt)) result.push(item);
  }
  return result;
}
