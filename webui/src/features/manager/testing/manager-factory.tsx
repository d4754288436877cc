/** Test data and a render helper for manager pages (staff context + live socket provider). */
import type { ReactElement } from 'react';
import { renderWithProviders } from '../../../testing/render';
import { RealtimeProvider } from '../../realtime';
import type { ServerStatus, StaffUser } from '../api/manager';
import { StaffContext } from '../staff';

const STAFF_SETTINGS = { allow_partys: true, allow_email: true };
export const ADMIN: StaffUser = { username: 'jefa', email: null, alias: null, web_settings: STAFF_SETTINGS, role: 'admin' };
export const SUPPORT: StaffUser = { username: 'ayuda', email: null, alias: null, web_settings: STAFF_SETTINGS, role: 'support' };

export function testServerStatus(overrides: Partial<ServerStatus> = {}): ServerStatus {
  return {
    id: 's1',
    name: 'Miami 1',
    address: 'miami1.vpn.test',
    port: 51820,
    ubication: 'Miami',
    active: true,
    allow_partys: true,
    interface_name: 'wg0',
    tunnel_subnet: '10.8.0.0/24',
    dns: '1.1.1.1',
    capacity: 250,
    backbone_endpoint: '',
    backbone_port: 51821,
    public_key: null,
    agent_version: null,
    backend: null,
    online: false,
    last_seen: null,
    serial: 0,
    applied_serial: 0,
    in_sync: true,
    has_credential: true,
    credential_issued: '2026-11-21T05:00:00Z',
    peers: 0,
    peers_active: 0,
    stats_at: null,
    stats_peers_connected: 0,
    stats_rx_bytes: 0,
    stats_tx_bytes: 0,
    backbone_address: null,
    ...overrides,
  };
}

export function renderManagerPage(ui: ReactElement, staff: StaffUser = ADMIN, route = '/manager/dashboard/x') {
  return renderWithProviders(
    <StaffContext.Provider value={staff}>
      <RealtimeProvider>{ui}</RealtimeProvider>
    </StaffContext.Provider>,
    { route },
  );
}
