/** `useRequest` that fetches again whenever `key` (the filters and page of a list) changes. */
import { useState } from 'react';
import { useRequest, type RequestResult } from '../../../lib/use-request';

export function useKeyedRequest<T>(key: string, fetcher: (signal: AbortSignal) => Promise<T>): RequestResult<T> {
  const result = useRequest(fetcher);
  const [loadedKey, setLoadedKey] = useState(key);
  if (loadedKey !== key) {
    // Adjusting state while rendering (React's documented pattern for "reset when a prop changes").
    setLoadedKey(key);
    result.reload();
  }
  return result;
}
