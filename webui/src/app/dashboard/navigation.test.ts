import { describe, expect, it } from 'vitest';
import { dashboardTitle, navigationFor } from './navigation';

describe('dashboard titles and navigation', () => {
  it('names every dashboard page in Spanish', () => {
    expect(dashboardTitle('/dashboard/peers')).toBe('Peers');
    expect(dashboardTitle('/dashboard/home')).toBe('Inicio');
    expect(dashboardTitle('/dashboard/invoices')).toBe('Facturas');
    expect(dashboardTitle('/dashboard/invoices/abc123')).toBe('Recibo de pago');
    expect(dashboardTitle('/dashboard/sessions')).toBe('Sesiones abiertas');
    expect(dashboardTitle('/dashboard/settings')).toBe('Configuración de cuenta');
    expect(dashboardTitle('/dashboard/partys')).toBe('Salas');
    expect(dashboardTitle('/dashboard/otra')).toBe('Dashboard');
  });

  it('lists Facturas between Planes and Ayuda', () => {
    expect(navigationFor({ allow_partys: false, allow_email: false }).map((entry) => entry.label)).toEqual([
      'Home', 'Peers', 'Planes', 'Facturas', 'Ayuda',
    ]);
  });
});
