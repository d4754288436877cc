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
    const sent = ledger.mark();
    ledger.note('a', 3); // the push: two changes since
    const pushed = [item('a', 3, 'nuevo')];
    expect(reconcileList(pushed, [item('a', 2, 'leído antes')], ledger, sent)).toEqual([item('a', 3, 'nuevo')]);
    expect(reconcileList(shown, [item('a', 4, 'leído después')], ledger, sent)).toEqual([item('a', 4, 'leído después')]);
  });

  it('takes a read of the same version as the push: the same change, read again (live fields may have moved)', () => {
    const ledger = new VersionLedger();
    ledger.note('a', 7);
    expect(reconcileList([item('a', 7, 'empujado')], [item('a', 7, 'leído')], ledger, ledger.mark())).toEqual([
      item('a', 7, 'leído'),
    ]);
  });

  it('does not bring back an item deleted after the read, and keeps one created while the fetch ran', () => {
    const ledger = new VersionLedger();
    const sent = ledger.mark();
    ledger.note('gone', Number.MAX_SAFE_INTEGER, true); // a deletion outranks every view (docs/api.md, versions)
    ledger.note('new', 1); // versions of different entities say nothing of each other: 'new' is younger than 'old'
    const shown = [item('new', 1)];
    expect(reconcileList(shown, [item('gone', 20), item('old', 20)], ledger, sent)).toEqual([
      item('old', 20),
      item('new', 1),
    ]);
  });

  it('drops a shown item the fetch lacks when this page heard of it before the fetch was sent (a missed deletion)', () => {
    const ledger = new VersionLedger();
    ledger.note('a', 10);
    const sent = ledger.mark();
    expect(reconcileList([item('a', 10)], [item('b', 2)], ledger, sent)).toEqual([item('b', 2)]);
  });

  it('brings back a room left, then joined again: its view after the join has a larger version than the leave', () => {
    const ledger = new VersionLedger();
    ledger.note('a', 10, true); // deleted_guest_party of a room that lives on
    expect(reconcileList([], [item('a', 12)], ledger, ledger.mark())).toEqual([item('a', 12)]);
  });
});
