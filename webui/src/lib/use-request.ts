/** A small data-loading hook: runs a fetcher, tracks loading / error / data, and offers a reload. */
import { useCallback, useEffect, useRef, useState } from 'react';

export type RequestState<T> =
  | { status: 'loading' }
  | { status: 'error'; error: unknown }
  | { status: 'success'; data: T };

export interface RequestResult<T> {
  state: RequestState<T>;
  reload: () => void;
  /** Replace the loaded data locally (e.g. after a mutation answered with the new value). */
  setData: (data: T) => void;
  /** Fetch again quietly: the loaded data stays on screen until the answer replaces it, and a failure keeps it (used
   * when the live socket reopens, docs/webui.md). */
  refresh: () => void;
}

export function useRequest<T>(fetcher: (signal: AbortSignal) => Promise<T>): RequestResult<T> {
  const [state, setState] = useState<RequestState<T>>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  // The latest fetcher is used without making callers memoise it.
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  const refreshing = useRef<AbortController | null>(null);

  useEffect(() => {
    // A quiet refresh still under way answers for what was asked before: it must not land after this load.
    refreshing.current?.abort();
    const controller = new AbortController();
    setState({ status: 'loading' });
    fetcherRef
      .current(controller.signal)
      .then((data) => {
        if (!controller.signal.aborted) setState({ status: 'success', data });
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setState({ status: 'error', error });
      });
    return () => controller.abort();
  }, [attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const setData = useCallback((data: T) => setState({ status: 'success', data }), []);
  const refresh = useCallback(() => {
    refreshing.current?.abort();
    const controller = new AbortController();
    refreshing.current = controller;
    fetcherRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ status: 'success', data });
      },
      () => undefined,
    );
  }, []);
  useEffect(() => () => refreshing.current?.abort(), []);
  return { state, reload, setData, refresh };
}
