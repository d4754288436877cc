/**
 * What customers see of their own service (docs/webui.md), with dani's 'tablet': the move list's load and its one
 * 'Recomendado' server, and the mirror link bound to a device from 'Detalles' (the game-connect client played by
 * plain requests with the X-Device-Id header). The two-devices warning needs a node that sees two real devices:
 * tests/netns/test_shared_config.py.
 */
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { logIn, newPage, screenshot, toastWith, useBrowser, visible } from './browser';

const browser = useBrowser();

describe('what customers see of their own service', () => {
  test('recommends one server in the move list and binds the mirror link to the first device', async () => {
    const { dani } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, dani);
    await page.goto('/dashboard/peers');
    const row = page.getByRole('row').filter({ hasText: 'tablet' });
    await visible(row);

    // The move list: each server's load, and the only other server (online, room left) is the recommended one.
    await row.getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Cambiar Servidor' }).click();
    await visible(page.getByRole('columnheader', { name: 'Carga' }));
    const servers = page.getByTestId('server-row');
    await visible(servers.first());
    expect(await servers.count()).toBe(1);
    await visible(servers.first().getByText('Recomendado'));
    await visible(servers.first().getByText(/\d+ peers? · \d+ conectados?/));
    await screenshot(page, 'change-server-recommended');
    await page.getByRole('button', { name: 'Volver a Peers' }).click();

    // Binding: on from 'Detalles'; the first device keeps the link, another is refused in Spanish.
    const link = (await row.getByText(/\/mirror\//).textContent())!.trim();
    await row.getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Detalles' }).click();
    const dialog = page.getByRole('dialog', { name: 'Detalles del peer tablet' });
    await visible(dialog.getByText('Vincular el mirror link a un dispositivo'));
    await dialog.getByRole('switch').click();
    await visible(toastWith(page, /Vinculación activada/));
    await visible(dialog.getByText('Ningún dispositivo vinculado todavía.'));

    const first = await context.request.get(link, { headers: { 'X-Device-Id': 'consola-de-dani-0001' } });
    expect(first.status()).toBe(200);
    // The owner's page hears of it by push.
    await visible(dialog.getByText('Vinculado a un dispositivo.'));
    const other = await context.request.get(link, { headers: { 'X-Device-Id': 'movil-ajeno-0002' } });
    expect(other.status()).toBe(409);
    expect((await other.json()).message).toContain('Este enlace está vinculado a otro dispositivo.');
    await screenshot(page, 'mirror-binding-bound');

    // Released: the next device is the one kept. Then off again, as the other scenarios expect the link.
    await dialog.getByRole('button', { name: 'Liberar dispositivo' }).click();
    await visible(dialog.getByText('Ningún dispositivo vinculado todavía.'));
    expect((await context.request.get(link, { headers: { 'X-Device-Id': 'movil-ajeno-0002' } })).status()).toBe(200);
    await dialog.getByRole('switch').click();
    await visible(toastWith(page, /Vinculación desactivada/));
    expect((await context.request.get(link)).status()).toBe(200);
    await context.close();
  });
});
