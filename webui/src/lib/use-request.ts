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
}

export function useRequest<T>(fetcher: (signal: AbortSignal) => Promise<T>): RequestResult<T> {
  const [state, setState] = useState<RequestState<T>>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  // The latest fetcher is used without making callers memoise it.
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;

  useEffect(() => {
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
  return { state, reload, setData };
}
