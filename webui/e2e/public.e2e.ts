/** Public pages as a visitor sees them: landing, plan catalogue, 404, login failure. */
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { newPage, screenshot, text, title, toastWith, useBrowser, visible } from './browser';

const browser = useBrowser();

describe('a visitor', () => {
  test('sees the landing with its pitch, the Cuba block and the WireGuard download', async () => {
    const { page, context } = await newPage(browser());
    await page.goto('/');
    await title(page, 'Bienvenido - VPN Pruebas');
    await text(page.getByRole('heading', { level: 1 }), 'VPN Pruebas: su conexión segura, privada y rápida');
    await visible(page.getByRole('heading', { name: '¿Está en Cuba o es cubano en el exterior?' }));
    const download = page.getByRole('link', { name: 'Descargar el cliente WireGuard' });
    expect(await download.getAttribute('href')).toMatch(/wireguard\.com/);
    await visible(page.getByRole('link', { name: 'Planes', exact: true }));
    await screenshot(page, 'public-landing');
    await page.getByRole('link', { name: 'Comienza ahora' }).click();
    await page.waitForURL('**/register');
    await context.close();
  });

  test('reads the plan catalogue and is sent to registration to buy', async () => {
    const { page, context } = await newPage(browser());
    await page.goto('/plans');
    await title(page, 'Planes - VPN Pruebas');
    for (const plan of harness().plans) {
      await visible(page.getByRole('heading', { name: plan.name, level: 3, exact: true }));
      await visible(page.getByText(`$${plan.price} USD`));
    }
    // 720 hours make a month, 8760 a year.
    await visible(page.getByText('Validez: 1 mes', { exact: true }).first());
    await visible(page.getByText('Validez: 3 meses', { exact: true }).first());
    await visible(page.getByText('Validez: 1 año', { exact: true }).first());
    await visible(page.getByText('Salas para jugar en LAN'));
    await screenshot(page, 'public-plans');
    await page.getByRole('link', { name: 'Adquirir Plan' }).first().click();
    await page.waitForURL('**/register');
    await context.close();
  });

  test('gets a Spanish 404 with a way back to login', async () => {
    const { page, context } = await newPage(browser());
    await page.goto('/no-existe');
    await visible(page.getByText('Página no encontrada'));
    await screenshot(page, 'public-404');
    await page.getByRole('link', { name: /login|iniciar sesión/i }).click();
    await page.waitForURL('**/login');
    await context.close();
  });

  test('is told why a login failed', async () => {
    const { page, context } = await newPage(browser());
    await page.goto('/login');
    await title(page, 'Login - VPN Pruebas');
    // Landing on: /login stays (docs/webui.md) and links back to /.
    await visible(page.getByRole('link', { name: 'Volver al inicio' }));
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    // The form's own alert (toasts are alerts too).
    const inline = page.locator('form').getByRole('alert');
    await text(inline, 'El usuario y la contraseña son obligatorios.');
    await page.getByLabel('Usuario').fill('ana');
    await page.getByLabel('Contraseña', { exact: true }).fill('no-es-la-clave');
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await text(inline, 'Usuario o contraseña incorrectos.');
    const toast = toastWith(page, 'Usuario o contraseña incorrectos.');
    await visible(toast);
    // Toasts sit top-right (docs/contract.md#constants).
    const box = (await toast.boundingBox())!;
    expect(box.x + box.width).toBeGreaterThan(1280 - 40);
    expect(box.y).toBeLessThan(200);
    await screenshot(page, 'public-login-failed');
    await context.close();
  });
});
