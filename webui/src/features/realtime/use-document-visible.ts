/** Whether the page's tab is shown: hidden tabs (another tab in front, the phone's screen off) fetch nothing. */
import { useSyncExternalStore } from 'react';

function subscribe(onChange: () => void): () => void {
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
}

export function isDocumentVisible(): boolean {
  return document.visibilityState !== 'hidden';
}

/** True while the tab is shown; re-renders when it is hidden or shown again. */
export function useDocumentVisible(): boolean {
  return useSyncExternalStore(subscribe, isDocumentVisible, () => true);
}
