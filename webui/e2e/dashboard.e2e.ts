/** A signed-in customer walks the dashboard: home, plans, help, navigation, 'Recordarme' across a reload. */
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import {
  api,
  logIn,
  logOut,
  newPage,
  PATIENCE,
  screenshot,
  text,
  title,
  unique,
  useBrowser,
  visible,
} from './browser';

const browser = useBrowser();

describe('the dashboard', () => {
  test('greets the user, shows home, plans and help, and keeps a remembered session across a reload', async () => {
    const { ana } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, ana, { remember: true });
    await title(page, 'Inicio - VPN Pruebas');
    await text(page.getByRole('button', { name: 'Menú de usuario' }), 'Bienvenido ana');
    // The welcome card, or the announcements when there are some (the manager walk publishes one).
    await visible(page.getByText('¡Bienvenido!').or(page.getByText('Mantenimiento programado el lunes.')).first());
    await visible(page.getByRole('button', { name: 'Contactar Soporte' }));
    const nav = page.getByRole('navigation', { name: 'Navegación' });
    for (const entry of ['Home', 'Peers', 'Salas', 'Planes', 'Ayuda']) {
      await visible(nav.getByRole('link', { name: entry, exact: true }));
    }
    await screenshot(page, 'dashboard-home');

    await nav.getByRole('link', { name: 'Planes', exact: true }).click();
    await page.waitForURL('**/dashboard/plans');
    for (const plan of harness().plans) await visible(page.getByRole('heading', { name: plan.name, level: 3, exact: true }));
    await screenshot(page, 'dashboard-plans');

    await nav.getByRole('link', { name: 'Ayuda', exact: true }).click();
    await page.waitForURL('**/dashboard/help');
    await visible(page.getByRole('heading', { name: 'Centro de Ayuda' }));
    await visible(page.getByText('Uso de las Salas'));
    await page.getByRole('button', { name: '¿Puedo usar el servicio en un router?' }).click();
    await visible(page.getByText(/MikroTik están soportados desde la versión 7\.1/));
    await screenshot(page, 'dashboard-help');

    // 'Recordarme': both tokens in local storage, so a reload keeps the session.
    const stored = await page.evaluate(() => Object.keys(window.localStorage));
    expect(stored).toEqual(expect.arrayContaining(['access_token', 'refresh_token']));
    await page.reload();
    await visible(page.getByRole('heading', { name: 'Centro de Ayuda' }));

    await logOut(page);
    expect(await page.evaluate(() => Object.keys(window.localStorage))).not.toContain('access_token');
    await context.close();
  });

  test('opens the live socket only on the peers and rooms pages, and closes it elsewhere', async () => {
    const { page, context } = await newPage(browser());
    const sockets: { url: string; closed: boolean }[] = [];
    page.on('websocket', (socket) => {
      const entry = { url: socket.url(), closed: false };
      sockets.push(entry);
      socket.on('close', () => {
        entry.closed = true;
      });
    });
    await logIn(page, harness().customers.ana);
    await visible(page.getByRole('button', { name: 'Contactar Soporte' }));
    const nav = page.getByRole('navigation', { name: 'Navegación' });
    await nav.getByRole('link', { name: 'Planes', exact: true }).click();
    await visible(page.getByRole('heading', { name: 'Mensual', level: 3, exact: true }));
    expect(sockets).toHaveLength(0);
    await nav.getByRole('link', { name: 'Peers', exact: true }).click();
    await expect.poll(() => sockets.length).toBe(1);
    expect(sockets[0]!.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws\?token=/);
    // Peers to rooms: the same connection stays open.
    await nav.getByRole('link', { name: 'Salas', exact: true }).click();
    await page.waitForURL('**/dashboard/partys');
    await page.waitForTimeout(500);
    expect(sockets.map((s) => s.closed)).toEqual([false]);
    await nav.getByRole('link', { name: 'Ayuda', exact: true }).click();
    await expect.poll(() => sockets[0]!.closed).toBe(true);
    expect(sockets).toHaveLength(1);
    await context.close();
  });

  test('a customer whom staff block while the peers page is open is sent to login by the socket', async () => {
    const account = { username: unique('bloq'), password: 'bloqueado-clave-1' };
    const registered = await fetch(`${harness().url}/api/client/register`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...account, captcha_token: harness().captcha.token }),
    });
    expect(registered.status, await registered.text()).toBe(201);
    const { page, context } = await newPage(browser());
    const socket = { greeted: false, closed: false };
    page.on('websocket', (opened) => {
      opened.on('framereceived', (frame) => {
        if (String(frame.payload).includes('"auth"')) socket.greeted = true;
      });
      opened.on('close', () => {
        socket.closed = true;
      });
    });
    await logIn(page, account);
    await page.getByRole('navigation', { name: 'Navegación' }).getByRole('link', { name: 'Peers', exact: true }).click();
    await page.waitForURL('**/dashboard/peers');
    await expect.poll(() => socket.greeted, { timeout: PATIENCE }).toBe(true); // attached on the server
    const found = (await api('GET', `/api/admin/users?q=${account.username}`)) as { items: { id: string }[] };
    await api('PATCH', `/api/admin/users/${found.items[0]!.id}`, { body: { blocked: true } });
    // No request of the page's own is needed: the server closes the socket (4401), the client checks its session,
    // the refresh is refused, and the login page shows.
    await page.waitForURL('**/login');
    expect(socket.closed).toBe(true);
    // ... saying why (docs/webui.md, live socket).
    await text(page.getByTestId('session-ended'), 'Su cuenta está bloqueada.');
    await context.close();
  });

  test('without a session the dashboard sends to login', async () => {
    const { page, context } = await newPage(browser());
    await page.goto('/dashboard/peers');
    await page.waitForURL('**/login');
    await context.close();
  });
});
