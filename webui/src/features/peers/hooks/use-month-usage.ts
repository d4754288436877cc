/** This month's traffic per peer for the list ('Usado este mes'), refreshed every few minutes while it shows. */
import { useEffect, useState } from 'react';
import { fetchMonthUsage, type MonthUsage } from '../api/usage';

/** The server writes usage once a minute per node (docs/usage.md): reading more often would show nothing new. */
const REFRESH_MS = 120_000;

export function useMonthUsage(): Record<string, MonthUsage> {
  const [usage, setUsage] = useState<Record<string, MonthUsage>>({});
  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      fetchMonthUsage(controller.signal).then(
        (rows) => setUsage(Object.fromEntries(rows.map((row) => [row.peer, row]))),
        () => undefined, // a figure that could not be read stays as it was: the list itself still works
      );
    void load();
    const timer = window.setInterval(load, REFRESH_MS);
    return () => {
      controller.abort();
      window.clearInterval(timer);
    };
  }, []);
  return usage;
}
