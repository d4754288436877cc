/**
 * Which of two views of one peer or room is newer (docs/api.md, versions): every view carries `version`, its row's
 * version in the server's database, which grows with every change to what the view shows. The ledger remembers the
 * newest version seen per id, deletions included, so an answer or a refetch that raced a push never brings back an
 * older state. Versions order the views of one entity only: they say nothing across entities.
 */

export interface Versioned {
  id: string;
  /** Absent from servers older than the field: such views are always taken. */
  version?: number;
}

export class VersionLedger {
  private readonly newest = new Map<string, { version: number; deleted: boolean; seen: number }>();
  // Counts what this page was told, in the order it was told: the one order across entities there is.
  private told = 0;

  /** True when a view of `id` at `version` is not older than what was already seen. */
  isCurrent(id: string, version: number | undefined): boolean {
    if (version === undefined) return true;
    const seen = this.newest.get(id);
    return !seen || version >= seen.version;
  }

  /** Records a view (or a deletion); returns whether it is current, i.e. whether the caller should apply it. */
  note(id: string, version: number | undefined, deleted = false): boolean {
    if (!this.isCurrent(id, version)) return false;
    if (version !== undefined) this.newest.set(id, { version, deleted, seen: ++this.told });
    return true;
  }

  /** Where the ledger is now: taken when a fetch is sent, for reconcileList. */
  mark(): number {
    return this.told;
  }

  /** Seen deleted at a version newer than `version`. */
  deletedSince(id: string, version: number | undefined): boolean {
    const seen = this.newest.get(id);
    return Boolean(seen?.deleted && (version === undefined || seen.version > version));
  }

  /** Seen (present) after `mark` was taken. */
  presentSince(id: string, mark: number): boolean {
    const seen = this.newest.get(id);
    return Boolean(seen && !seen.deleted && seen.seen > mark);
  }
}

/**
 * A freshly fetched list merged into what is shown: each fetched item unless a newer view of it (or its deletion)
 * was seen, in the fetched order; then the shown items the fetch lacks but that this page heard of after the fetch
 * was sent (`sent`: ledger.mark() then), i.e. a push that raced the read. A shown item heard of before and missing
 * from the fetch is gone (its deletion was missed, e.g. while the socket was down).
 */
export function reconcileList<T extends Versioned>(
  shown: readonly T[],
  fetched: readonly T[],
  ledger: VersionLedger,
  sent: number,
): T[] {
  const byId = new Map(shown.map((item) => [item.id, item]));
  const result: T[] = [];
  for (const item of fetched) {
    if (ledger.deletedSince(item.id, item.version)) continue;
    const current = byId.get(item.id);
    if (ledger.note(item.id, item.version) || !current) result.push(item);
    else result.push(current);
  }
  const fetchedIds = new Set(fetched.map((item) => item.id));
  for (const item of shown) {
    if (!fetchedIds.has(item.id) && ledger.presentSince(item.id, sent)) result.push(item);
  }
  return result;
}
