/**
 * This month's traffic per peer for the list ('Usado este mes'): read when the list shows, again every ten minutes
 * while the tab is shown, and once when it is shown again after that long hidden.
 */
import { useEffect, useState } from 'react';
import { isDocumentVisible } from '../../realtime';
import { fetchMonthUsage, type MonthUsage } from '../api/usage';

/**
 * A month's total moves little in ten minutes, and each read costs a customer on mobile data about 1.5 kB with its
 * headers: every two minutes it was half of what an open Peers page cost an hour (docs/benchmarks.md, "Session 15").
 */
export const MONTH_USAGE_REFRESH_MS = 600_000;

export function useMonthUsage(): Record<string, MonthUsage> {
  const [usage, setUsage] = useState<Record<string, MonthUsage>>({});
  useEffect(() => {
    const controller = new AbortController();
    let readAt = 0;
    const load = () => {
      readAt = Date.now();
      fetchMonthUsage(controller.signal).then(
        (rows) => setUsage(Object.fromEntries(rows.map((row) => [row.peer, row]))),
        () => undefined, // a figure that could not be read stays as it was: the list itself still works
      );
    };
    const loadIfStale = () => {
      if (isDocumentVisible() && Date.now() - readAt >= MONTH_USAGE_REFRESH_MS) load();
    };
    load();
    const timer = window.setInterval(() => {
      if (isDocumentVisible()) load();
    }, MONTH_USAGE_REFRESH_MS);
    document.addEventListener('visibilitychange', loadIfStale);
    return () => {
      controller.abort();
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', loadIfStale);
    };
  }, []);
  return usage;
}
