/** The guest gate (docs/contract.md#guest-gate) as a pure function: current path + public config -> redirect target or null. */
import type { PublicConfig } from '../lib/public-config';

type GateConfig = Pick<
  PublicConfig,
  'maintenance' | 'show_landing' | 'allow_registration' | 'allow_password_recovery'
>;

/** What the gate knows: a loaded config, or a 503 while loading it. */
export type GateInput = GateConfig | 'maintenance';

/** Pages that exist only as part of the landing site. */
const LANDING_PAGES = new Set(['/', '/plans']);

function normalize(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : path;
}

/** Where a guest who lands on `path` must go instead, or null to stay. */
export function guestGateRedirect(path: string, input: GateInput): string | null {
  const page = normalize(path);
  // The manager area has its own login and must stay usable to switch maintenance off again.
  if (page === '/manager' || page.startsWith('/manager/')) return null;

  if (input === 'maintenance' || input.maintenance) return page === '/maintenance' ? null : '/maintenance';

  const home = input.show_landing ? '/' : '/login';
  if (page === '/maintenance') return home;
  if (page === '/password-recovery' && !input.allow_password_recovery) return home;
  if (page === '/register' && !input.allow_registration) return '/login';
  if (!input.show_landing && LANDING_PAGES.has(page)) return '/login';
  return null;
}
