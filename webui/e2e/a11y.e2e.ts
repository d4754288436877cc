/**
 * Accessible (issue 30, item 8): axe-core, the standard engine for automated accessibility checks, run in Chromium
 * on the public, customer and manager pages at a phone's and a laptop's width, against WCAG 2.2 A and AA (contrast
 * included). No serious or critical violation may be left. axe.min.js is evaluated in the page through the
 * DevTools protocol, which the page's Content-Security-Policy does not govern (a script tag would be refused).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { violations } from './axe';
import { harness } from './harness';
import { loaded } from './layout';
import { gone, logIn, logInStaff, newPage, NARROW, useBrowser, visible, WIDE } from './browser';

const browser = useBrowser();

/** Opens a page at a phone's and a laptop's width and collects what axe finds at both. */
async function accessibleAtBothWidths(page: Page, name: string, open: () => Promise<void>): Promise<void> {
  const failures: string[] = [];
  for (const viewport of [NARROW, WIDE]) {
    await page.setViewportSize(viewport);
    await open();
    const found = await violations(page);
    if (found.length > 0) failures.push(`${name} at ${viewport.width} px:\n  ${found.join('\n  ')}`);
  }
  expect(failures, failures.join('\n')).toEqual([]);
}

/** Waits until nothing moves: a dialog measured while it fades in has colors blended with the page behind it. */
async function stillness(page: Page): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => document.getAnimations().filter((a) => a.playState === 'running').length))
    .toBe(0);
}

/** Goes to a page and waits for its heading and its data. */
async function openPage(page: Page, path: string, heading: string): Promise<void> {
  await page.goto(path);
  await visible(page.getByRole('heading', { name: heading, exact: true }).first());
  await loaded(page);
}

let guest: Awaited<ReturnType<typeof newPage>>;
let customer: Awaited<ReturnType<typeof newPage>>;
let staff: Awaited<ReturnType<typeof newPage>>;

describe('accessible pages (axe-core, WCAG 2.2 AA)', () => {
  beforeAll(async () => {
    guest = await newPage(browser());
    customer = await newPage(browser());
    await logIn(customer.page, harness().customers.hugo);
    staff = await newPage(browser());
    await logInStaff(staff.page, harness().admin);
  });

  afterAll(async () => {
    await guest?.context.close();
    await customer?.context.close();
    await staff?.context.close();
  });

  test('landing, login and register', async () => {
    const { page } = guest;
    await accessibleAtBothWidths(page, 'landing', async () => {
      await page.goto('/');
      await visible(page.getByRole('link', { name: 'Iniciar sesión' }).first());
    });
    await accessibleAtBothWidths(page, 'login', async () => {
      await page.goto('/login');
      await visible(page.getByRole('button', { name: 'Iniciar sesión' }));
    });
    await accessibleAtBothWidths(page, 'register', async () => {
      await page.goto('/register');
      await visible(page.getByLabel('Usuario'));
    });
  });

  test('the customer dashboard: home, peers, rooms, plans, settings', async () => {
    const { page } = customer;
    await accessibleAtBothWidths(page, 'home', () => openPage(page, '/dashboard/home', 'Home'));
    await accessibleAtBothWidths(page, 'peers', async () => {
      await openPage(page, '/dashboard/peers', 'Peers Wireguard');
      await visible(page.getByText('tv', { exact: true }).first());
    });
    await accessibleAtBothWidths(page, 'rooms', () => openPage(page, '/dashboard/partys', 'Salas'));
    await accessibleAtBothWidths(page, 'plans', () => openPage(page, '/dashboard/plans', 'Planes'));
    await accessibleAtBothWidths(page, 'settings', () => openPage(page, '/dashboard/settings', 'Configuración de Cuenta'));
  });

  test('the customer dashboard: invoices, a receipt, the open sessions and their password dialog', async () => {
    const { page } = customer;
    await accessibleAtBothWidths(page, 'invoices', async () => {
      await openPage(page, '/dashboard/invoices', 'Facturas');
      await visible(page.getByText('Pendiente de pago').first());
    });
    await accessibleAtBothWidths(page, 'receipt', () => openPage(page, '/dashboard/invoices/seed-hugo-0', 'Recibo de pago'));
    await accessibleAtBothWidths(page, 'sessions', async () => {
      await openPage(page, '/dashboard/sessions', 'Sesiones abiertas');
      await visible(page.getByText('Esta sesión', { exact: true }));
    });
    // A second session of hugo's, so 'Cerrar las demás sesiones' has something to close.
    const { hugo } = harness().customers;
    const login = await fetch(`${harness().url}/api/client/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: hugo.username, password: hugo.password }),
    });
    expect(login.status).toBe(200);
    await accessibleAtBothWidths(page, 'close-others dialog', async () => {
      await openPage(page, '/dashboard/sessions', 'Sesiones abiertas');
      await page.getByRole('button', { name: 'Cerrar las demás sesiones' }).click();
      await visible(page.getByRole('dialog', { name: 'Cerrar las demás sesiones' }));
      await stillness(page);
    });
    for (const [item, dialog] of [['Renombrar', 'Renombrar tv'], ['Ver configuración', 'Configuración de tv']] as const) {
      await accessibleAtBothWidths(page, `${item} dialog`, async () => {
        await openPage(page, '/dashboard/peers', 'Peers Wireguard');
        const tv = page.getByTestId('peer-row').or(page.getByTestId('peer-card')).filter({ has: page.getByText('tv', { exact: true }) });
        await tv.getByRole('button', { name: 'Más acciones' }).click();
        await page.getByRole('menuitem', { name: item }).click();
        await visible(page.getByRole('dialog', { name: dialog }));
        await gone(page.getByText('Cargando configuración...'));
        await stillness(page);
      });
    }
  });

  test("the manager's overview, users and servers", async () => {
    const { page } = staff;
    await accessibleAtBothWidths(page, 'manager overview', () => openPage(page, '/manager/dashboard', 'Resumen'));
    await accessibleAtBothWidths(page, 'manager users', () => openPage(page, '/manager/dashboard/users', 'Usuarios'));
    await accessibleAtBothWidths(page, 'manager servers', () => openPage(page, '/manager/dashboard/servers', 'Servidores'));
  });

  test("the manager's other pages: peers, plans, invoices, announcements, switches, audit", async () => {
    const { page } = staff;
    const pages = [
      ['peers', 'Peers'],
      ['plans', 'Planes'],
      ['invoices', 'Facturas'],
      ['announcements', 'Anuncios y versiones'],
      ['switches', 'Interruptores'],
      ['audit', 'Auditoría'],
    ] as const;
    for (const [path, heading] of pages) {
      await accessibleAtBothWidths(page, `manager ${path}`, async () => {
        await page.goto(`/manager/dashboard/${path}`);
        await visible(page.getByRole('heading', { name: heading, exact: true }).first());
        await loaded(page);
      });
    }
  });
});
