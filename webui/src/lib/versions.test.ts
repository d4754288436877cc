import { describe, expect, it } from 'vitest';
import { VersionLedger, reconcileList } from './versions';

const item = (id: string, version: number, label = id) => ({ id, version, label });

describe('VersionLedger', () => {
  it('takes a view not older than the newest seen and refuses an older one', () => {
    const ledger = new VersionLedger();
    expect(ledger.note('a', 10)).toBe(true);
    expect(ledger.note('a', 9)).toBe(false);
    expect(ledger.note('a', 10)).toBe(true);
    expect(ledger.note('a', 11)).toBe(true);
    expect(ledger.isCurrent('a', 10)).toBe(false);
  });

  it('takes views without a version (older servers) and they do not move the newest', () => {
    const ledger = new VersionLedger();
    ledger.note('a', 10);
    expect(ledger.note('a', undefined)).toBe(true);
    expect(ledger.isCurrent('a', 9)).toBe(false);
  });
});

describe('reconcileList', () => {
  it('keeps a pushed view newer than the fetched one (a refetch that raced the push)', () => {
    const ledger = new VersionLedger();
    const shown = [item('a', 1, 'viejo')];
    ledger.note('a', 20); // the push
    const pushed = [item('a', 20, 'nuevo')];
    expect(reconcileList(pushed, [item('a', 15, 'leído antes')], ledger)).toEqual([item('a', 20, 'nuevo')]);
    expect(reconcileList(shown, [item('a', 25, 'leído después')], ledger)).toEqual([item('a', 25, 'leído después')]);
  });

  it('does not bring back an item deleted after the read, and keeps one created after it', () => {
    const ledger = new VersionLedger();
    ledger.note('gone', 30, true);
    ledger.note('new', 31);
    const shown = [item('new', 31)];
    expect(reconcileList(shown, [item('gone', 20), item('old', 20)], ledger)).toEqual([item('old', 20), item('new', 31)]);
  });

  it('drops a shown item the fetch lacks when the fetch was read after it', () => {
    const ledger = new VersionLedger();
    ledger.note('a', 10);
    expect(reconcileList([item('a', 10)], [item('b', 40)], ledger)).toEqual([item('b', 40)]);
  });

  it('brings back an item deleted before the read (it exists again only if the server says so)', () => {
    const ledger = new VersionLedger();
    ledger.note('a', 10, true);
    expect(reconcileList([], [item('a', 40)], ledger)).toEqual([item('a', 40)]);
  });
});
