/** Realtime feature: the socket provider (mounted once by the app) and the hooks features subscribe with. */
export { RealtimeProvider } from './RealtimeProvider';
export { useLatestPushMessage, usePushMessage, useSocketOpened, useSocketStatus } from './use-push-message';
export { isDocumentVisible, useDocumentVisible } from './use-document-visible';
export type { NoticeData, PushMessage, PushOf, PushType } from './messages';
