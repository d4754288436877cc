/** The dashboard's navigation entries (docs/contract.md#navigation); Salas only when the user's web settings allow rooms.
 * 'Facturas' is an addition (docs/contract.md#beyond). */
import type { WebSettings } from '../../lib/current-user';

export interface NavigationEntry {
  label: string;
  path: string;
}

export function navigationFor(settings: WebSettings): NavigationEntry[] {
  return [
    { label: 'Home', path: '/dashboard/home' },
    { label: 'Peers', path: '/dashboard/peers' },
    ...(settings.allow_partys ? [{ label: 'Salas', path: '/dashboard/partys' }] : []),
    { label: 'Planes', path: '/dashboard/plans' },
    { label: 'Facturas', path: '/dashboard/invoices' },
    { label: 'Ayuda', path: '/dashboard/help' },
  ];
}

/** Each dashboard page's title (docs/contract.md#page-titles), by its path; a path not listed keeps 'Dashboard'. */
const TITLES: [RegExp, string][] = [
  [/^\/dashboard\/home\/?$/, 'Inicio'],
  [/^\/dashboard\/peers\/?$/, 'Peers'],
  [/^\/dashboard\/partys\/?$/, 'Salas'],
  [/^\/dashboard\/plans\/?$/, 'Planes'],
  [/^\/dashboard\/invoices\/?$/, 'Facturas'],
  [/^\/dashboard\/invoices\/[^/]+\/?$/, 'Recibo de pago'],
  [/^\/dashboard\/help\/?$/, 'Ayuda'],
  [/^\/dashboard\/settings\/?$/, 'Configuración de cuenta'],
  [/^\/dashboard\/sessions\/?$/, 'Sesiones abiertas'],
  [/^\/dashboard\/payment\/?$/, 'Resultado del pago'],
];

export function dashboardTitle(pathname: string): string {
  return TITLES.find(([pattern]) => pattern.test(pathname))?.[1] ?? 'Dashboard';
}
