/** The dashboard's navigation entries (docs/contract.md#navigation); Salas only when the user's web settings allow rooms. */
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
    { label: 'Ayuda', path: '/dashboard/help' },
  ];
}
