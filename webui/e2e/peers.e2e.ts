/**
 * Peers (dani's 'tablet'): the table, the config download, the mirror link, regenerate and change server with the
 * push from the (scripted) agent completing the operation.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { dismissToasts, logIn, newPage, screenshot, toastWith, useBrowser, visible } from './browser';

const browser = useBrowser();

describe('peers', () => {
  test('downloads a WireGuard file, regenerates the mirror link, regenerates and changes server by push', async () => {
    const { dani } = harness().customers;
    const [habana, madrid] = harness().servers;
    const { page, context } = await newPage(browser());
    await logIn(page, dani);
    await page.getByRole('navigation', { name: 'Navegación' }).getByRole('link', { name: 'Peers' }).click();
    await page.waitForURL('**/dashboard/peers');
    await visible(page.getByRole('heading', { name: 'Peers Wireguard' }));
    const row = page.getByRole('row').filter({ hasText: 'tablet' });
    await visible(row);
    await visible(row.getByText('Activo').first());
    // The server by its name, never its address (the address is in the file, where WireGuard needs it).
    await visible(row.getByText(habana!.name, { exact: true }));
    expect(await row.getByText(habana!.address).count()).toBe(0);
    await visible(row.getByText('La Habana', { exact: true }));
    await screenshot(page, 'peers-table');

    // The configuration file, saved as '<peer name>.conf'.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: 'Descargar configuración' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('tablet.conf');
    const config = readFileSync((await download.path())!, 'utf8');
    expect(config).toMatch(/^\[Interface\]$/m);
    expect(config).toMatch(/^PrivateKey = [A-Za-z0-9+/]{43}=$/m);
    expect(config).toMatch(/^Address = 10\.61\.0\.\d+\/32$/m);
    expect(config).toMatch(/^\[Peer\]$/m);
    expect(config).toContain(`Endpoint = ${habana!.address}:51820`);

    // Mirror link: copy, then regenerate (the link shown changes).
    const mirror = row.getByText(/\/mirror\//);
    const before = (await mirror.textContent())!.trim();
    await row.getByRole('button', { name: 'Copiar mirror link' }).click();
    await visible(toastWith(page, 'Mirror link copiado en el portapapeles.'));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(before);
    await dismissToasts(page);
    await row.getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Regenerar Mirror Link' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Regenerar' }).click();
    await visible(toastWith(page, 'Mirror Link regenerado correctamente.'));
    await expect.poll(async () => (await mirror.textContent())!.trim()).not.toBe(before);

    // Regenerate: asynchronous, the push of the agent's result ends it.
    await dismissToasts(page);
    await row.getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Regenerar Peer' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Regenerar' }).click();
    await visible(toastWith(page, 'Peer tablet regenerado correctamente.'));
    await dismissToasts(page);
    const [again] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: 'Descargar configuración' }).click(),
    ]);
    const regenerated = readFileSync((await again.path())!, 'utf8');
    expect(regenerated.match(/^PrivateKey = .*$/m)![0]).not.toBe(config.match(/^PrivateKey = .*$/m)![0]);

    // Change server: the view, the confirmation, then the push completing it.
    await dismissToasts(page);
    await row.getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Cambiar Servidor' }).click();
    await visible(page.getByRole('button', { name: 'Volver a Peers' }));
    const target = page.getByRole('row').filter({ hasText: madrid!.name });
    await visible(target);
    await screenshot(page, 'peers-change-server');
    await target.getByRole('button', { name: 'Seleccionar' }).click();
    const dialog = page.getByRole('dialog');
    await visible(dialog.getByText(`${madrid!.name} (Madrid)`));
    await dialog.getByRole('button', { name: 'Cambiar' }).click();
    await visible(toastWith(page, `El peer tablet ya está en ${madrid!.name} (Madrid). Descargue de nuevo la configuración.`));
    await visible(page.getByRole('row').filter({ hasText: 'tablet' }).getByText(madrid!.name, { exact: true }));
    await visible(page.getByRole('row').filter({ hasText: 'tablet' }).getByText('Madrid', { exact: true }));
    await screenshot(page, 'peers-after-change');

    // Details dialog: dates, and the plan history table.
    await row.getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Detalles' }).click();
    await visible(page.getByRole('dialog').getByText(/de \w+ de 20\d\d/).first());
    await screenshot(page, 'peers-details');
    await context.close();
  });
});
