import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import type { Overview } from '../api/manager';
import { OverviewView } from './OverviewPage';

const GB = 1024 ** 3;

const overview: Overview = {
  users: 3,
  customers_blocked: 0,
  users_new_7d: 1,
  peers: 4,
  peers_active: 4,
  servers: 2,
  servers_active: 2,
  servers_online: 2,
  operations_pending: 0,
  operations_failed_24h: 0,
  recent_operations: [],
  revenue: null,
  usage: {
    month_start: '2026-11-01T00:00:00Z',
    servers: [
      { id: 's1', name: 'Madrid 1', download: 2 * GB, upload: GB / 2 },
      { id: 's2', name: 'Miami 1', download: 3 * GB, upload: GB },
    ],
    download: 5 * GB,
    upload: 1.5 * GB,
    days: [{ start: '2026-11-25T00:00:00Z', download: 5 * GB, upload: 1.5 * GB }],
  },
};

describe('manager overview traffic', () => {
  it('shows each server this month, the total and the daily chart', async () => {
    renderWithProviders(<OverviewView data={overview} />);
    const card = await screen.findByTestId('overview-traffic');
    const rows = within(card).getAllByRole('row').map((row) => row.textContent);
    expect(rows).toEqual(['ServidorBajadaSubida', 'Madrid 12.0 GB512.0 MB', 'Miami 13.0 GB1.0 GB', 'Total5.0 GB1.5 GB']);
    expect(await within(card).findByRole('img', { name: 'Tráfico total por día en los últimos 30 días' }, { timeout: 10_000 })).toBeInTheDocument();
  });
});
