/** The live push socket (`/ws?token=...`): when it may open, its URL, message parsing and the 5 s reconnect rule. */

/** Spec section 9: a socket that had been open reconnects this long after it closed. */
export const SOCKET_RECONNECT_MS = 5000;

/** Close code the server uses for a bad or expired token (docs/api.md, live push). */
export const SOCKET_AUTH_REJECTED = 4401;

/** One push message: `{type, message?, data?}`; `data` is typed by the subscriber (see features/realtime). */
export interface PushMessage<TData = unknown> {
  type: string;
  message?: string;
  data?: TData;
}

const LIVE_PAGES = ['/dashboard/peers', '/dashboard/partys'];

/** Spec section 4: the socket opens only on the peers and rooms pages and on manager dashboard pages. */
export function isLivePage(pathname: string): boolean {
  const page = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return LIVE_PAGES.includes(page) || pathname.startsWith('/manager/dashboard/');
}

/** `ws://` or `wss://` to match the page, same host, token in the query. */
export function socketUrl(token: string, location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws?token=${encodeURIComponent(token)}`;
}

/** A frame as a push message, or null when it is not JSON with a string `type` (such frames are dropped). */
export function parsePushMessage(raw: unknown): PushMessage | null {
  if (typeof raw !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || typeof (value as { type?: unknown }).type !== 'string') return null;
  const { type, message, data } = value as { type: string; message?: unknown; data?: unknown };
  return { type, ...(typeof message === 'string' ? { message } : {}), ...(data === undefined ? {} : { data }) };
}

export interface LiveSocketOptions {
  /** Read at every (re)connection, so a renewed access token is used; null means stay closed. */
  getToken: () => string | null;
  onMessage: (message: PushMessage) => void;
  /**
   * The server refused the token (close 4401). Resolves true when the session could be renewed, and only then is
   * the usual reconnect scheduled: reconnecting with a token the server keeps refusing would loop every 5 s.
   */
  onAuthRejected?: () => Promise<boolean>;
  reconnectMs?: number;
}

/**
 * One reconnecting WebSocket. `start()` opens it when a token exists (no-op while open or connecting), `stop()`
 * closes it for good until the next `start()`. Only a socket that had reached `open` reconnects after a close.
 */
export class LiveSocket {
  private socket: WebSocket | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private wanted = false;
  private readonly options: LiveSocketOptions;

  constructor(options: LiveSocketOptions) {
    this.options = options;
  }

  get isConnected(): boolean {
    return this.socket !== null;
  }

  start(): void {
    this.wanted = true;
    if (this.socket || this.reconnectTimer) return;
    this.connect();
  }

  stop(): void {
    this.wanted = false;
    this.cancelReconnect();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      // Detach first: a close we asked for must not schedule a reconnect.
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      socket.close();
    }
  }

  private connect(): void {
    const token = this.options.getToken();
    if (!token) return;
    let opened = false;
    const socket = new WebSocket(socketUrl(token));
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
    };
    socket.onmessage = (event: MessageEvent) => {
      const message = parsePushMessage(event.data);
      if (message) this.options.onMessage(message);
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (!opened || !this.wanted) return;
      if (event.code === SOCKET_AUTH_REJECTED && this.options.onAuthRejected) {
        void this.options.onAuthRejected().then((renewed) => {
          if (renewed) this.scheduleReconnect();
        });
        return;
      }
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (!this.wanted || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.wanted && !this.socket) this.connect();
    }, this.options.reconnectMs ?? SOCKET_RECONNECT_MS);
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }
}
