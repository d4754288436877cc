/** Test data: peers and servers shaped like the API's answers (docs/api.md). */
import type { Peer, ServerOption } from '../api/peers';

export function testPeer(overrides: Partial<Peer> = {}): Peer {
  const id = overrides.id ?? 'p1';
  return {
    id,
    name: 'movil',
    active: true,
    created: '2026-11-21T12:00:00Z',
    expiration_date: '2026-12-21T12:00:00Z',
    manual_payment: false,
    plans_history: [{ plan_name: 'Mensual', plan_price: '5.00', created: '2026-11-21T12:00:00Z' }],
    server: { id: 's1', name: 'Miami 1', address: 'vpn1.example.org', active: true, ubication: 'Miami', allow_partys: true },
    mirror_link: `http://127.0.0.1:8000/mirror/token-${id}`,
    party: null,
    address: '10.8.0.2',
    processing: false,
    version: 0,
    ...overrides,
  };
}

export function testServer(overrides: Partial<ServerOption> = {}): ServerOption {
  return {
    id: 's2',
    name: 'Madrid 1',
    address: 'vpn2.example.org',
    active: true,
    ubication: 'Madrid',
    allow_partys: false,
    online: true,
    in_sync: true,
    ...overrides,
  };
}
