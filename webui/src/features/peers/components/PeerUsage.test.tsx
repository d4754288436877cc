import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders } from '../../../testing/render';
import * as usageApi from '../api/usage';
import type { UsageSeries } from '../api/usage';
import { testPeer } from '../testing/peer-factory';
import { PeerDetailsDialog } from './PeerDetailsDialog';
import { PeerTable } from './PeerTable';

vi.mock('../api/usage', async (importOriginal) => {
  const original = await importOriginal<typeof import('../api/usage')>();
  return { ...original, fetchPeerUsage: vi.fn(), fetchMonthUsage: vi.fn() };
});
const api = vi.mocked(usageApi);

afterEach(() => vi.clearAllMocks());

const GB = 1024 ** 3;
const MB = 1024 ** 2;

function series(range: UsageSeries['range'], download: number, upload: number): UsageSeries {
  const bucket = range === '24h' ? 'hour' : range === '30d' ? 'day' : 'month';
  return {
    range,
    bucket,
    points: [
      { start: '2026-11-24T00:00:00Z', download: download / 2, upload: upload / 2 },
      { start: '2026-11-25T00:00:00Z', download: download / 2, upload: upload / 2 },
    ],
    download,
    upload,
  };
}

describe('usage history in the peer details', () => {
  it('shows the last 30 days first and the chosen period after', async () => {
    api.fetchPeerUsage.mockImplementation(async (_id, range) =>
      range === '30d' ? series('30d', 3 * GB, 512 * MB) : series(range, 40 * MB, 2 * MB),
    );
    const actor = userEvent.setup({ delay: null });
    renderWithProviders(<PeerDetailsDialog peer={testPeer({ id: 'p1', name: 'movil' })} stats={undefined} onClose={() => undefined} onBindMirror={async () => undefined} />);
    const usage = await screen.findByTestId('peer-usage');
    expect(await within(usage).findByTestId('usage-totals')).toHaveTextContent(
      'Bajada 3.0 GB · Subida 512.0 MB en los últimos 30 días',
    );
    expect(await within(usage).findByRole('img', { name: 'Consumo en los últimos 30 días' }, { timeout: 10_000 })).toBeInTheDocument();
    expect(api.fetchPeerUsage).toHaveBeenLastCalledWith('p1', '30d', expect.anything());

    await actor.click(within(usage).getByText('24 horas'));
    expect(await within(usage).findByText(/Bajada 40.0 MB · Subida 2.0 MB en las últimas 24 horas/)).toBeInTheDocument();
    expect(api.fetchPeerUsage).toHaveBeenLastCalledWith('p1', '24h', expect.anything());
  });

  it('says in Spanish when the history cannot be read, and reads it again on request', async () => {
    api.fetchPeerUsage.mockRejectedValueOnce(new ApiError(503, 'Servicio no disponible.', 'unavailable'));
    api.fetchPeerUsage.mockResolvedValueOnce(series('30d', 5 * MB, MB));
    const actor = userEvent.setup({ delay: null });
    renderWithProviders(<PeerDetailsDialog peer={testPeer({ id: 'p1' })} stats={undefined} onClose={() => undefined} onBindMirror={async () => undefined} />);
    expect(await screen.findByText('Servicio no disponible.')).toBeInTheDocument();
    await actor.click(await screen.findByRole('button', { name: /Reintentar/ }));
    await waitFor(() => expect(screen.getByTestId('usage-totals')).toHaveTextContent('Bajada 5.0 MB · Subida 1.0 MB'));
  });
});

describe('usage this month in the peers table', () => {
  it('shows each peer its own total and split, and a dash before the figures arrive', () => {
    const peers = [testPeer({ id: 'p1', name: 'movil' }), testPeer({ id: 'p2', name: 'tablet' })];
    renderWithProviders(
      <PeerTable
        peers={peers}
        stats={{}}
        usage={{ p1: { peer: 'p1', download: GB, upload: 512 * MB } }}
        showRooms={false}
        isBusy={() => false}
        onDownload={async () => undefined}
        onShowQr={() => undefined}
        onAction={() => undefined}
      />,
      { route: '/dashboard/peers' },
    );
    expect(screen.getByRole('columnheader', { name: 'Usado este mes' })).toBeInTheDocument();
    const [movil, tablet] = screen.getAllByTestId('peer-row') as [HTMLElement, HTMLElement];
    expect(within(movil).getByTestId('peer-month-usage')).toHaveTextContent('1.5 GB↓ 1.0 GB · ↑ 512.0 MB');
    expect(within(tablet).queryByTestId('peer-month-usage')).not.toBeInTheDocument();
  });
});
