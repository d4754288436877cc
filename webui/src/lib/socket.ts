/** The live push socket (`/ws?token=...`): when it may open, its URL, message parsing and reconnecting with backoff. */

/**
 * Reconnect delays (docs/webui.md, live socket): the contract's 5 s is the first ceiling, doubled after every failed
 * attempt up to a minute, and each delay is drawn between half the ceiling and the ceiling so that many browsers
 * cut off by one server restart do not come back in step.
 */
export const SOCKET_RECONNECT_MS = 5000;
export const SOCKET_RECONNECT_MAX_MS = 60_000;

/** Close code the server uses for a bad or expired token (docs/api.md, live push). */
export const SOCKET_AUTH_REJECTED = 4401;
/** Close code for a page whose origin the server does not accept; the reason is the address that works. */
export const SOCKET_ORIGIN_REFUSED = 4403;

/** The delay before reconnect attempt `attempt` (0 = the first after a close). */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(SOCKET_RECONNECT_MS * 2 ** Math.min(attempt, 10), SOCKET_RECONNECT_MAX_MS);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * `connecting`: the first attempt; `open`; `reconnecting`: it failed or dropped and will try again; `refused`: the
 * server does not accept this page's origin (no retry); `closed`: not wanted (another page, no token).
 */
export type SocketStatus =
  | { state: 'closed' | 'connecting' | 'open' | 'reconnecting' }
  | { state: 'refused'; expectedOrigin: string };

/** One push message: `{type, message?, data?}`; `data` is typed by the subscriber (see features/realtime). */
export interface PushMessage<TData = unknown> {
  type: string;
  message?: string;
  data?: TData;
}

const LIVE_PAGES = ['/dashboard/peers', '/dashboard/partys'];

/** docs/contract.md#socket: the socket opens only on the peers and rooms pages and on manager dashboard pages. */
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
  /** Every time the socket opens (the first time too): what was pushed while it was not open is lost. */
  onOpen?: () => void;
  onStatus?: (status: SocketStatus) => void;
  random?: () => number;
}

/**
 * One reconnecting WebSocket. `start()` opens it when a token exists (no-op while open, connecting or waiting to
 * reconnect), `stop()` closes it for good until the next `start()`. A socket that failed or dropped reconnects with
 * backoff, except after a refused origin, or a refused token the session could not renew.
 */
export class LiveSocket {
  private socket: WebSocket | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private wanted = false;
  private failures = 0;
  private status: SocketStatus = { state: 'closed' };
  private hidden = false;
  private readonly options: LiveSocketOptions;

  constructor(options: LiveSocketOptions) {
    this.options = options;
  }

  get isConnected(): boolean {
    return this.socket !== null;
  }

  start(): void {
    this.wanted = true;
    if (this.socket || this.reconnectTimer || this.status.state === 'refused') return;
    this.connect();
  }

  stop(): void {
    this.wanted = false;
    this.failures = 0;
    this.cancelReconnect();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      // Detach first: a close we asked for must not schedule a reconnect.
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      socket.close();
    }
    this.setStatus({ state: 'closed' });
  }

  /**
   * The page's tab was hidden or shown: the server holds the live figures (`peer_stats`) of a hidden page and sends
   * what it held when the page is shown (docs/webui.md, live socket). Said again on every (re)opening.
   */
  setHidden(hidden: boolean): void {
    if (hidden === this.hidden) return;
    this.hidden = hidden;
    this.tell(hidden ? 'pause' : 'resume');
  }

  private tell(type: 'pause' | 'resume'): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type }));
  }

  private setStatus(status: SocketStatus): void {
    this.status = status;
    this.options.onStatus?.(status);
  }

  private connect(): void {
    const token = this.options.getToken();
    if (!token) return;
    const socket = new WebSocket(socketUrl(token));
    this.socket = socket;
    if (this.status.state !== 'reconnecting') this.setStatus({ state: 'connecting' });
    socket.onopen = () => {
      if (this.hidden) this.tell('pause');
      this.setStatus({ state: 'open' });
      this.options.onOpen?.();
    };
    socket.onmessage = (event: MessageEvent) => {
      // A server that accepts and then closes at once (too many connections) must not reset the backoff.
      this.failures = 0;
      const message = parsePushMessage(event.data);
      if (message) this.options.onMessage(message);
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (!this.wanted) return;
      if (event.code === SOCKET_ORIGIN_REFUSED) {
        this.setStatus({ state: 'refused', expectedOrigin: event.reason });
        return;
      }
      this.setStatus({ state: 'reconnecting' });
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
    const delay = reconnectDelay(this.failures, this.options.random);
    this.failures += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.wanted && !this.socket) this.connect();
    }, delay);
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }
}
