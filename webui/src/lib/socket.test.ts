import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket } from '../features/realtime/testing/fake-web-socket';
import {
  LiveSocket,
  SOCKET_AUTH_REJECTED,
  SOCKET_ORIGIN_REFUSED,
  isLivePage,
  parsePushMessage,
  reconnectDelay,
  socketUrl,
  type SocketStatus,
} from './socket';

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** `random` 1: every delay is its ceiling (5 s, 10 s, 20 s...), so the tests can count milliseconds. */
function liveSocket(token: string | null = 'acc', onAuthRejected?: () => Promise<boolean>) {
  const onMessage = vi.fn();
  const onOpen = vi.fn();
  const statuses: SocketStatus[] = [];
  const socket = new LiveSocket({
    getToken: () => token,
    onMessage,
    onAuthRejected,
    onOpen,
    onStatus: (status) => statuses.push(status),
    random: () => 1,
  });
  return { socket, onMessage, onOpen, statuses };
}

describe('live pages', () => {
  it('are the peers and rooms pages and the manager dashboard, nothing else', () => {
    for (const page of ['/dashboard/peers', '/dashboard/partys', '/dashboard/peers/', '/manager/dashboard/nodes']) {
      expect(isLivePage(page)).toBe(true);
    }
    for (const page of ['/', '/login', '/dashboard/home', '/dashboard/plans', '/dashboard/peersx', '/manager/login']) {
      expect(isLivePage(page)).toBe(false);
    }
  });
});

describe('socket URL', () => {
  it('uses ws on http pages and wss on https pages, with the token in the query', () => {
    expect(socketUrl('a b', { protocol: 'http:', host: 'localhost:5173' })).toBe('ws://localhost:5173/ws?token=a%20b');
    expect(socketUrl('tok', { protocol: 'https:', host: 'vpn.example.org' })).toBe('wss://vpn.example.org/ws?token=tok');
  });
});

describe('reconnect delay', () => {
  it('is drawn between half its ceiling and the ceiling, which doubles from 5 s up to a minute', () => {
    expect(reconnectDelay(0, () => 0)).toBe(2500);
    expect(reconnectDelay(0, () => 1)).toBe(5000);
    expect(reconnectDelay(1, () => 0.5)).toBe(7500);
    expect(reconnectDelay(3, () => 1)).toBe(40_000);
    expect(reconnectDelay(4, () => 1)).toBe(60_000);
    expect(reconnectDelay(50, () => 0)).toBe(30_000);
  });
});

describe('message parsing', () => {
  it('keeps type, message and data and drops frames that are not push messages', () => {
    expect(parsePushMessage('{"type":"updated_peer","message":"ok","data":{"id":"1"}}')).toEqual({
      type: 'updated_peer',
      message: 'ok',
      data: { id: '1' },
    });
    expect(parsePushMessage('no json')).toBeNull();
    expect(parsePushMessage('{"message":"sin tipo"}')).toBeNull();
    expect(parsePushMessage('[1,2]')).toBeNull();
  });
});

describe('LiveSocket', () => {
  it('tells the server when the tab is hidden and shown, and again on every reopening while hidden', () => {
    const { socket } = liveSocket();
    socket.start();
    socket.setHidden(true); // not open yet: nothing to tell, the opening tells it
    const first = FakeWebSocket.latest();
    first.open();
    expect(first.sent).toEqual(['{"type":"pause"}']);
    socket.setHidden(false);
    socket.setHidden(false);
    socket.setHidden(true);
    expect(first.sent).toEqual(['{"type":"pause"}', '{"type":"resume"}', '{"type":"pause"}']);
    first.serverClose();
    vi.advanceTimersByTime(5000);
    const second = FakeWebSocket.latest();
    second.open();
    expect(second.sent).toEqual(['{"type":"pause"}']);
  });

  it('does not open without an access token', () => {
    const { socket } = liveSocket(null);
    socket.start();
    expect(FakeWebSocket.instances).toHaveLength(0);
  });

  it('delivers parsed messages', () => {
    const { socket, onMessage } = liveSocket();
    socket.start();
    const ws = FakeWebSocket.latest();
    expect(ws.url).toBe('ws://localhost:3000/ws?token=acc');
    ws.open();
    ws.receive({ type: 'success', message: 'Listo' });
    expect(onMessage).toHaveBeenCalledWith({ type: 'success', message: 'Listo' });
  });

  it('reconnects 5000 ms after a close when it had been open', () => {
    const { socket } = liveSocket();
    socket.start();
    FakeWebSocket.latest().open();
    FakeWebSocket.latest().serverClose();

    vi.advanceTimersByTime(4999);
    expect(FakeWebSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it('retries a connection that never opened, waiting twice as long each time up to a minute', () => {
    const { socket, statuses } = liveSocket();
    socket.start();
    const expected = [5000, 10_000, 20_000, 40_000, 60_000, 60_000];
    for (const [i, delay] of expected.entries()) {
      FakeWebSocket.latest().serverClose();
      vi.advanceTimersByTime(delay - 1);
      expect(FakeWebSocket.instances).toHaveLength(i + 1);
      vi.advanceTimersByTime(1);
      expect(FakeWebSocket.instances).toHaveLength(i + 2);
    }
    expect(statuses.at(-1)).toEqual({ state: 'reconnecting' });
  });

  it('starts again from 5 s once a connection was greeted, and says when it is open', () => {
    const { socket, onOpen, statuses } = liveSocket();
    socket.start();
    expect(statuses).toEqual([{ state: 'connecting' }]);
    FakeWebSocket.latest().serverClose();
    vi.advanceTimersByTime(5000);
    FakeWebSocket.latest().serverClose();
    vi.advanceTimersByTime(10_000);
    FakeWebSocket.latest().open();
    FakeWebSocket.latest().receive({ type: 'auth', data: { username: 'ana' } });
    expect(onOpen).toHaveBeenCalledTimes(1);
    expect(statuses.at(-1)).toEqual({ state: 'open' });
    FakeWebSocket.latest().serverClose();
    vi.advanceTimersByTime(5000);
    expect(FakeWebSocket.instances).toHaveLength(4);
  });

  it('stays closed after a refused origin and reports the address that works', () => {
    const { socket, statuses } = liveSocket();
    socket.start();
    FakeWebSocket.latest().open();
    FakeWebSocket.latest().serverClose(SOCKET_ORIGIN_REFUSED, 'http://127.0.0.1:8000');
    vi.advanceTimersByTime(600_000);
    socket.start();
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(statuses.at(-1)).toEqual({ state: 'refused', expectedOrigin: 'http://127.0.0.1:8000' });
  });

  it('does not reconnect after stop, and stop cancels a pending reconnect', () => {
    const { socket } = liveSocket();
    socket.start();
    FakeWebSocket.latest().open();
    socket.stop();
    expect(FakeWebSocket.latest().closedByClient).toBe(true);

    socket.start();
    FakeWebSocket.latest().open();
    FakeWebSocket.latest().serverClose();
    socket.stop();
    vi.advanceTimersByTime(10_000);
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it('reconnects after a refused token only once the session was renewed', async () => {
    let renewed = false;
    const { socket } = liveSocket('acc', async () => renewed);
    socket.start();
    FakeWebSocket.latest().open();
    FakeWebSocket.latest().serverClose(SOCKET_AUTH_REJECTED);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(FakeWebSocket.instances).toHaveLength(1);

    renewed = true;
    socket.stop();
    socket.start();
    FakeWebSocket.latest().open();
    FakeWebSocket.latest().serverClose(SOCKET_AUTH_REJECTED);
    await vi.advanceTimersByTimeAsync(5000);
    expect(FakeWebSocket.instances).toHaveLength(3);
  });
});
