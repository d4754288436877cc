/**
 * Everyday controls (issue 30, item 6), as ines uses them in Chromium: she renames her peer from its menu, copies
 * its configuration as text, reads her invoices and prints a receipt, and closes her other sessions after a wrong
 * and a right password (the other browser is sent to login). The manager renames a peer too.
 */
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { api, gone, logIn, logInStaff, NARROW, newPage, screenshot, text, title, toastWith, useBrowser, visible, WIDE } from './browser';
import { layoutProblems, settle } from './layout';

const browser = useBrowser();
const RULE = 'El nombre del peer debe tener entre 1 y 32 caracteres: letras, números, guion o guion bajo.';

/** Screenshots of what is on screen now at a phone's and a laptop's width (e2e/artifacts/everyday-<name>-<w>.png). */
async function atBothWidths(page: Page, name: string): Promise<void> {
  for (const viewport of [NARROW, WIDE]) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(200);
    await screenshot(page, `everyday-${name}-${viewport.width}`);
  }
}

async function peerMenu(page: Page, peerName: string, item: string): Promise<void> {
  // Table at 1280 px: the row that names the peer holds its '⋯'.
  const row = page.getByTestId('peer-row').filter({ has: page.getByText(peerName, { exact: true }) });
  await row.getByRole('button', { name: 'Más acciones' }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

describe('everyday controls', () => {
  test('renames a peer from its menu, then shows and copies its configuration as text', async () => {
    const { ines } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, ines);
    await page.goto('/dashboard/peers');
    await title(page, 'Peers - VPN Pruebas');
    await visible(page.getByText('movil-de-ines', { exact: true }).first());

    await peerMenu(page, 'movil-de-ines', 'Renombrar');
    const rename = page.getByRole('dialog', { name: 'Renombrar movil-de-ines' });
    const field = rename.getByRole('textbox', { name: 'Nuevo nombre' });
    await field.fill('mi teléfono');
    await rename.getByRole('button', { name: 'Guardar' }).click();
    await visible(rename.getByText(RULE));
    await atBothWidths(page, 'rename-refused');
    await page.setViewportSize(WIDE);
    await field.fill('telefono-ines');
    await rename.getByRole('button', { name: 'Guardar' }).click();
    await visible(toastWith(page, 'Nombre del peer cambiado.'));
    await gone(rename);
    await visible(page.getByText('telefono-ines', { exact: true }).first());
    // Renamed on the server, not only on this screen.
    await page.reload();
    await visible(page.getByText('telefono-ines', { exact: true }).first());
    await expect.poll(() => page.getByText('movil-de-ines', { exact: true }).count()).toBe(0);

    await peerMenu(page, 'telefono-ines', 'Ver configuración');
    const dialog = page.getByRole('dialog', { name: 'Configuración de telefono-ines' });
    const shown = dialog.getByLabel('Configuración de telefono-ines');
    await visible(shown);
    await visible(dialog.getByText('Contiene la clave privada del peer: no lo comparta.'));
    const peers = (await api('GET', '/api/client/accounts/peers', { account: ines })) as { id: string; name: string }[];
    const peer = peers.find((p) => p.name === 'telefono-ines')!;
    const download = await fetch(`${harness().url}/api/client/accounts/peers/${peer.id}`, {
      headers: { Authorization: `Bearer ${await page.evaluate(() => localStorage.getItem('access_token'))}` },
    });
    const file = await download.text();
    expect(file).toContain('[Interface]');
    expect(download.headers.get('content-disposition')).toContain('telefono-ines.conf');
    expect(await shown.textContent()).toBe(file);
    await dialog.getByRole('button', { name: 'Copiar configuración' }).click();
    await visible(dialog.getByRole('button', { name: 'Configuración copiada' }));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(file);
    await atBothWidths(page, 'config-text');
    await context.close();
  });

  test('lists her invoices and shows a printable receipt of the paid one', async () => {
    const { ines } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, ines);
    // Home first: her payment in progress, what it buys and the gateway's page to complete it (its own tab).
    const payment = page.getByTestId('attention-item').filter({ hasText: 'Pago en curso' });
    await text(
      payment,
      'Pago en curso: plan Trimestral para telefono-ines con Remesita. Complete el pago en Remesita; se aplicará en cuanto Remesita lo confirme.Completar el pago en Remesita',
    );
    const reopen = payment.getByRole('link', { name: 'Completar el pago en Remesita' });
    expect(await reopen.getAttribute('href')).toBe('https://remesita.example/pay/seed-ines-4');
    expect(await reopen.getAttribute('target')).toBe('_blank');
    // Only the pending one: her paid invoice needs nothing.
    await expect.poll(() => page.getByText('Pago en curso', { exact: false }).count()).toBe(1);
    await atBothWidths(page, 'home-payment');
    for (const viewport of [NARROW, WIDE]) {
      await page.setViewportSize(viewport);
      await settle(page);
      expect(await layoutProblems(page)).toEqual([]);
    }

    await page.getByRole('navigation', { name: 'Navegación' }).getByRole('link', { name: 'Facturas' }).click();
    await page.waitForURL('**/dashboard/invoices');
    await title(page, 'Facturas - VPN Pruebas');
    const cards = page.getByRole('region', { name: /^Factura de / });
    await expect.poll(() => cards.count()).toBe(2);
    // Newest first: the pending Remesita one, then the paid QvaPay one, its peer under its new name.
    await visible(cards.nth(0).getByText('Pendiente de pago'));
    await visible(cards.nth(0).getByText('Pasarela: Remesita', { exact: false }));
    await expect.poll(() => cards.nth(0).getByRole('link', { name: /Ver recibo/ }).count()).toBe(0);
    await visible(cards.nth(1).getByText('Mensual · $5.00 USD'));
    await visible(cards.nth(1).getByText('Peer: telefono-ines · Pasarela: QvaPay'));
    await atBothWidths(page, 'invoices');

    await page.setViewportSize(WIDE);
    await cards.nth(1).getByRole('link', { name: /Ver recibo/ }).click();
    await visible(page.getByRole('heading', { name: 'Recibo de pago' }));
    await title(page, 'Recibo de pago - VPN Pruebas');
    const receipt = page.getByRole('table');
    await visible(receipt.getByRole('row', { name: /Cliente ines/ }));
    await visible(receipt.getByRole('row', { name: /Transacción tx-ines-3/ }));
    await visible(page.getByText('VPN Pruebas', { exact: true }).last());
    await atBothWidths(page, 'receipt');
    // Printed, the receipt is alone on the page: no navigation, no buttons.
    await page.emulateMedia({ media: 'print' });
    await gone(page.getByRole('button', { name: 'Imprimir' }));
    await gone(page.getByRole('navigation', { name: 'Navegación' }));
    await visible(page.getByRole('heading', { name: 'Recibo de pago' }));
    await screenshot(page, 'everyday-receipt-print');
    await context.close();
  });

  test('closes the other sessions after the password: a wrong one is said in the dialog, the other browser goes to login', async () => {
    const { ines } = harness().customers;
    const other = await newPage(browser());
    await logIn(other.page, ines);
    const { page, context } = await newPage(browser());
    await logIn(page, ines);
    await page.getByRole('button', { name: 'Menú de usuario' }).click();
    await page.getByRole('menuitem', { name: 'Sesiones abiertas' }).click();
    await page.waitForURL('**/dashboard/sessions');
    await title(page, 'Sesiones abiertas - VPN Pruebas');
    const sessions = page.getByRole('region', { name: /^Sesión: / });
    await expect.poll(() => sessions.count()).toBeGreaterThanOrEqual(2);
    await expect.poll(() => sessions.filter({ has: page.getByText('Esta sesión', { exact: true }) }).count()).toBe(1);
    await visible(sessions.first().getByText('Esta sesión', { exact: true })); // the most recently used first: this one
    await visible(sessions.first().getByText(/^Chrome en Linux$/));
    await visible(sessions.first().getByText('Dirección: 127.0.0.1'));
    await atBothWidths(page, 'sessions');

    await page.setViewportSize(WIDE);
    await page.getByRole('button', { name: 'Cerrar las demás sesiones' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cerrar las demás sesiones' });
    await dialog.getByLabel('Contraseña').fill('no-es-la-clave');
    await dialog.getByRole('button', { name: 'Cerrar sesiones' }).click();
    await visible(dialog.getByText('La contraseña actual no es correcta.'));
    await atBothWidths(page, 'sessions-wrong-password');
    await page.setViewportSize(WIDE);
    await dialog.getByLabel('Contraseña').fill(ines.password);
    await dialog.getByRole('button', { name: 'Cerrar sesiones' }).click();
    await visible(toastWith(page, 'Se cerraron las demás sesiones.'));
    await expect.poll(() => sessions.count()).toBe(1);
    await visible(page.getByText('No hay otras sesiones abiertas.'));

    // The other browser's session is over: its next page goes to login.
    await other.page.goto('/dashboard/peers');
    await other.page.waitForURL('**/login');
    // This one goes on.
    await page.goto('/dashboard/peers');
    await visible(page.getByRole('heading', { name: 'Peers Wireguard' }));
    await other.context.close();
    await context.close();
  });

  test("the manager renames a customer's peer; the rule is said beside the field", async () => {
    const { page, context } = await newPage(browser());
    await logInStaff(page, harness().admin);
    await page.goto('/manager/dashboard/peers');
    await page.getByRole('textbox', { name: 'Buscar peers' }).fill('telefono-ines');
    // The search answers after a pause: the list then holds her peer alone.
    await expect.poll(() => page.getByRole('button', { name: /^Acciones de / }).count()).toBe(1);
    await page.getByRole('button', { name: 'Acciones de telefono-ines' }).click();
    await page.getByRole('menuitem', { name: 'Renombrar' }).click();
    const dialog = page.getByRole('dialog', { name: 'Renombrar telefono-ines de ines' });
    await dialog.getByRole('textbox', { name: 'Nuevo nombre' }).fill('con espacio');
    await dialog.getByRole('button', { name: 'Guardar' }).click();
    await visible(dialog.getByText(RULE));
    await dialog.getByRole('textbox', { name: 'Nuevo nombre' }).fill('movil-de-ines');
    await dialog.getByRole('button', { name: 'Guardar' }).click();
    await visible(toastWith(page, 'Peer renombrado a movil-de-ines.'));
    const { ines } = harness().customers;
    const peers = (await api('GET', '/api/client/accounts/peers', { account: ines })) as { name: string }[];
    expect(peers.map((peer) => peer.name)).toEqual(['movil-de-ines']);
    const audit = (await api('GET', '/api/admin/audit?action=peer.rename')) as { items: { summary: string }[] };
    expect(audit.items[0]?.summary).toBe('Peer telefono-ines renombrado a movil-de-ines');
    await context.close();
  });
});
