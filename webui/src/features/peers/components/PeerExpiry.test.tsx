import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import type { Peer } from '../api/peers';
import { daysLeft, daysLeftText, expiresSoon } from '../expiry';
import { testPeer } from '../testing/peer-factory';
import { PeerCards } from './PeerCards';
import { PeerTable } from './PeerTable';

const inHours = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();

function listProps(peers: Peer[]) {
  return {
    peers,
    stats: {},
    showRooms: true,
    isBusy: () => false,
    onDownload: async () => undefined,
    onShowQr: () => undefined,
    onAction: () => undefined,
  };
}

const peers = [
  testPeer({ id: 'p1', name: 'movil', expiration_date: inHours(50) }),
  testPeer({ id: 'p2', name: 'tablet', expiration_date: inHours(24 * 20) }),
  testPeer({ id: 'p3', name: 'router', expiration_date: null }),
  testPeer({ id: 'p4', name: 'oficina', manual_payment: true, expiration_date: inHours(24 * 5) }),
  testPeer({ id: 'p5', name: 'viejo', active: false, expiration_date: inHours(-30) }),
  testPeer({ id: 'p6', name: 'bloqueado', active: false, disabled_reason: 'admin', expiration_date: inHours(24 * 9) }),
];

describe('expiry in the peers list', () => {
  it('shows the date, the days left and a renew shortcut in the table', () => {
    renderWithProviders(<PeerTable {...listProps(peers)} />, { route: '/dashboard/peers' });
    const row = (name: string) => screen.getAllByTestId('peer-row').find((r) => within(r).queryByText(name)) as HTMLElement;
    expect(within(row('movil')).getByText('Quedan 3 días')).toBeInTheDocument();
    expect(within(row('movil')).getByRole('link', { name: 'Renovar movil' })).toHaveAttribute('href', '/dashboard/plans?renew=p1');
    expect(within(row('tablet')).getByText('Quedan 20 días')).toBeInTheDocument();
    expect(within(row('router')).getByText('Indeterminado')).toBeInTheDocument();
    expect(within(row('router')).queryByRole('link', { name: /Renovar/ })).not.toBeInTheDocument();
    // Paid by hand: staff renew it, so no shortcut to a purchase it cannot make.
    expect(within(row('oficina')).queryByRole('link', { name: /Renovar/ })).not.toBeInTheDocument();
    expect(within(row('viejo')).getByText('Vencido')).toBeInTheDocument();
    expect(within(row('viejo')).getByRole('link', { name: 'Renovar viejo' })).toBeInTheDocument();
    // Disabled by staff: a purchase would be refused, so no shortcut to one.
    expect(within(row('bloqueado')).queryByRole('link', { name: /Renovar/ })).not.toBeInTheDocument();
  });

  it('shows the same on the narrow cards', () => {
    renderWithProviders(<PeerCards {...listProps(peers.slice(0, 1))} />, { route: '/dashboard/peers' });
    const card = screen.getByTestId('peer-card');
    expect(within(card).getByText('Vencimiento')).toBeInTheDocument();
    expect(within(card).getByText('Quedan 3 días')).toBeInTheDocument();
    expect(within(card).getByRole('link', { name: 'Renovar movil' })).toHaveAttribute('href', '/dashboard/plans?renew=p1');
  });
});

describe('expiry rules', () => {
  const now = Date.parse('2026-11-25T00:00:00Z');
  it('counts whole days left rounding up, and says when it expired', () => {
    expect(daysLeft('2026-11-26T12:00:00Z', now)).toBe(2);
    expect(daysLeftText('2026-11-25T05:00:00Z', now)).toBe('Queda menos de 1 día');
    expect(daysLeftText('2026-11-24T23:00:00Z', now)).toBe('Vencido');
    expect(daysLeftText(null, now)).toBeNull();
  });

  it('warns only about active peers ending within 3 days', () => {
    expect(expiresSoon({ active: true, expiration_date: '2026-11-27T23:00:00Z' }, now)).toBe(true);
    expect(expiresSoon({ active: true, expiration_date: '2026-11-28T01:00:00Z' }, now)).toBe(false);
    expect(expiresSoon({ active: false, expiration_date: '2026-11-26T00:00:00Z' }, now)).toBe(false);
    expect(expiresSoon({ active: true, expiration_date: '2026-11-24T00:00:00Z' }, now)).toBe(false);
    expect(expiresSoon({ active: true, expiration_date: null }, now)).toBe(false);
  });
});
