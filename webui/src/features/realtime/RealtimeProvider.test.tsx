import { notifications } from '@mantine/notifications';
import { act, screen } from '@testing-library/react';
import { useState } from 'react';
import { Link, Outlet } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../testing/render';
import { RealtimeProvider } from './RealtimeProvider';
import { FakeWebSocket } from './testing/fake-web-socket';
import { useLatestPushMessage, usePushMessage, useSocketOpened } from './use-push-message';

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
});

afterEach(() => {
  // The toast store outlives a render: empty it so one test's toasts never satisfy the next.
  act(() => notifications.clean());
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function LatestMessage() {
  const latest = useLatestPushMessage();
  const [opened, setOpened] = useState(0);
  useSocketOpened(() => setOpened((n) => n + 1));
  return (
    <>
      <p>último: {latest ? latest.type : 'ninguno'}</p>
      <p>aperturas: {opened}</p>
    </>
  );
}

function Page({ name }: { name: string }) {
  return (
    <>
      <h1>{name}</h1>
      <LatestMessage />
      <Link to="/dashboard/peers">ir a peers</Link>
      <Link to="/dashboard/partys">ir a salas</Link>
      <Link to="/dashboard/home">ir a home</Link>
    </>
  );
}

function renderAt(route: string) {
  return renderWithProviders(<></>, {
    route,
    routes: [
      {
        element: (
          <RealtimeProvider>
            <Outlet />
          </RealtimeProvider>
        ),
        children: [
          { path: '/dashboard/peers', element: <Page name="peers" /> },
          { path: '/dashboard/partys', element: <Page name="salas" /> },
          { path: '/dashboard/home', element: <Page name="home" /> },
          { path: '/manager/dashboard/nodes', element: <Page name="nodos" /> },
          { path: '/login', element: <Page name="login" /> },
        ],
      },
    ],
  });
}

const signIn = () => window.localStorage.setItem('access_token', 'acc');

describe('realtime socket', () => {
  it('opens on the peers, rooms and manager dashboard pages with a token', () => {
    signIn();
    for (const route of ['/dashboard/peers', '/dashboard/partys', '/manager/dashboard/nodes']) {
      FakeWebSocket.reset();
      const { unmount } = renderAt(route);
      expect(FakeWebSocket.instances).toHaveLength(1);
      expect(FakeWebSocket.latest().url).toBe('ws://localhost:3000/ws?token=acc');
      unmount();
      expect(FakeWebSocket.latest().closedByClient).toBe(true);
    }
  });

  it('stays closed on other pages and without a token', () => {
    signIn();
    renderAt('/dashboard/home');
    renderAt('/login');
    expect(FakeWebSocket.instances).toHaveLength(0);

    window.localStorage.clear();
    renderAt('/dashboard/peers');
    expect(FakeWebSocket.instances).toHaveLength(0);
  });

  it('keeps one socket between live pages, closes it when leaving them and opens it again on return', async () => {
    signIn();
    const { router } = renderAt('/dashboard/peers');
    const first = FakeWebSocket.latest();
    act(() => first.open());

    await act(() => router.navigate('/dashboard/partys'));
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(first.closedByClient).toBe(false);

    await act(() => router.navigate('/dashboard/home'));
    expect(first.closedByClient).toBe(true);

    await act(() => router.navigate('/dashboard/peers'));
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it('says it is reconnecting after a drop, reconnects within 5 s, and tells the page it reopened', () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(1); // the longest first delay the jitter allows
    signIn();
    renderAt('/dashboard/peers');
    act(() => FakeWebSocket.latest().open());
    expect(screen.getByText('aperturas: 1')).toBeInTheDocument();
    expect(screen.queryByTestId('realtime-status')).toBeNull();
    act(() => FakeWebSocket.latest().serverClose());
    expect(screen.getByTestId('realtime-status')).toHaveTextContent('Sin conexión en tiempo real, reconectando…');

    act(() => vi.advanceTimersByTime(4999));
    expect(FakeWebSocket.instances).toHaveLength(1);
    act(() => vi.advanceTimersByTime(1));
    expect(FakeWebSocket.instances).toHaveLength(2);
    act(() => FakeWebSocket.latest().open());
    expect(screen.queryByTestId('realtime-status')).toBeNull();
    expect(screen.getByText('aperturas: 2')).toBeInTheDocument();
  });

  it('retries a socket that never opened (blocked), showing the notice meanwhile', () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0);
    signIn();
    renderAt('/dashboard/partys');
    act(() => FakeWebSocket.latest().serverClose());
    expect(screen.getByTestId('realtime-status')).toHaveTextContent('reconectando');
    act(() => vi.advanceTimersByTime(2500));
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it('explains a refused origin in Spanish, with the address to open, and does not retry', () => {
    vi.useFakeTimers();
    signIn();
    renderAt('/dashboard/peers');
    act(() => FakeWebSocket.latest().open());
    act(() => FakeWebSocket.latest().serverClose(4403, 'http://127.0.0.1:8000'));
    expect(screen.getByTestId('realtime-status')).toHaveTextContent(
      'Las actualizaciones en tiempo real no están disponibles desde esta dirección. Abra http://127.0.0.1:8000 para recibirlas.',
    );
    act(() => vi.advanceTimersByTime(120_000));
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('renews the session after the server refused the token, then reconnects with the new token', async () => {
    vi.useFakeTimers();
    signIn();
    const fetchMock = vi.fn(async (url: string) => {
      if (url === '/api/client/verify-token') {
        // The API client's refresh rule stores a new access token; here the check simply succeeds.
        window.localStorage.setItem('access_token', 'nuevo');
        return new Response(JSON.stringify({ username: 'ana' }), { status: 200 });
      }
      return new Response('{}', { status: 404 });
    });
    vi.stubGlobal('fetch', fetchMock);
    renderAt('/dashboard/peers');
    act(() => FakeWebSocket.latest().open());
    act(() => FakeWebSocket.latest().serverClose(4401));

    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(fetchMock).toHaveBeenCalledWith('/api/client/verify-token', expect.anything());
    expect(FakeWebSocket.instances).toHaveLength(2);
    expect(FakeWebSocket.latest().url).toBe('ws://localhost:3000/ws?token=nuevo');
  });

  it('stays closed after a refused token when the session cannot be renewed', async () => {
    vi.useFakeTimers();
    signIn();
    vi.stubGlobal('fetch', vi.fn(async () => new Response('{}', { status: 401 })));
    renderAt('/dashboard/peers');
    act(() => FakeWebSocket.latest().open());
    act(() => FakeWebSocket.latest().serverClose(4401));

    await act(() => vi.advanceTimersByTimeAsync(20_000));
    expect(FakeWebSocket.instances).toHaveLength(1);
    // The API client ended the session (and sends the user to login), so nothing is left to reconnect with.
    expect(window.localStorage.getItem('access_token')).toBeNull();
  });

  it('clears the incoming data on route change', async () => {
    signIn();
    const { router } = renderAt('/dashboard/peers');
    act(() => FakeWebSocket.latest().open());
    act(() => FakeWebSocket.latest().receive({ type: 'peer_stats', data: { peers: [] } }));
    expect(screen.getByText('último: peer_stats')).toBeInTheDocument();

    await act(() => router.navigate('/dashboard/partys'));
    expect(await screen.findByText('último: ninguno')).toBeInTheDocument();
  });

  it('shows error, info and success pushes as toasts', async () => {
    signIn();
    renderAt('/dashboard/peers');
    const ws = FakeWebSocket.latest();
    act(() => ws.open());
    act(() => ws.receive({ type: 'error', message: 'El nodo no respondió' }));
    act(() => ws.receive({ type: 'error' }));
    act(() => ws.receive({ type: 'info', message: 'Mantenimiento a las 3' }));
    act(() => ws.receive({ type: 'success', message: 'Peer regenerado' }));
    expect(await screen.findByText('El nodo no respondió')).toBeInTheDocument();
    expect(screen.getByText('Hubo un error al realizar la operación.')).toBeInTheDocument();
    expect(screen.getByText('Mantenimiento a las 3')).toBeInTheDocument();
    expect(screen.getByText('Peer regenerado')).toBeInTheDocument();
  });

  it('hands each subscriber only the types it asked for', () => {
    signIn();
    const seen: string[] = [];
    function Subscriber() {
      usePushMessage(['updated_peer', 'deleted_peer'], (message) => {
        seen.push(`${message.type}:${message.data?.id ?? ''}`);
      });
      return null;
    }
    renderWithProviders(<></>, {
      route: '/dashboard/peers',
      routes: [
        {
          path: '/dashboard/peers',
          element: (
            <RealtimeProvider>
              <Subscriber />
            </RealtimeProvider>
          ),
        },
      ],
    });
    const ws = FakeWebSocket.latest();
    act(() => ws.open());
    act(() => ws.receive({ type: 'updated_peer', data: { id: 'p1' } }));
    act(() => ws.receive({ type: 'created_peer', data: { id: 'p2' } }));
    act(() => ws.receive({ type: 'deleted_peer', data: { id: 'p3' } }));
    expect(seen).toEqual(['updated_peer:p1', 'deleted_peer:p3']);
  });
});
