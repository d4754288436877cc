/**
 * States that explain themselves and expiry that is never a surprise: the renew shortcut from the peers list to the
 * purchase dialog and through the fake gateway, the payment page for an invoice that is not the customer's, the
 * logged-in 404 and the manager header at 390 px.
 */
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { logIn, logInStaff, NARROW, newPage, screenshot, text, useBrowser, useSwitches, visible } from './browser';

const browser = useBrowser();
useSwitches({ allow_payments_qvapay: true, allow_payments_remesita: false });

describe('states and expiry', () => {
  test('Renovar in the peers list opens the purchase dialog on that peer, and the payment extends it', async () => {
    const { ana } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, ana);
    await page.goto('/dashboard/peers');
    const row = page.getByRole('row').filter({ hasText: 'portatil' });
    await visible(row.getByText('Quedan 30 días'));
    await row.getByRole('link', { name: 'Renovar portatil' }).click();
    await page.waitForURL('**/dashboard/plans?renew=*');
    // portatil was never bought through a plan: the page asks which plan, then the dialog has the peer chosen.
    await visible(page.getByText('Renovar el peer portatil'));
    const card = page.locator('.mantine-Card-root').filter({ has: page.getByRole('heading', { name: 'Mensual', level: 3, exact: true }) });
    await card.getByRole('button', { name: 'Seleccionar Plan' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adquirir plan' });
    await visible(dialog);
    expect(await dialog.getByRole('combobox', { name: 'Peer' }).inputValue()).toBe('portatil');
    await screenshot(page, 'renew-dialog');
    const [gateway] = await Promise.all([
      page.context().waitForEvent('page'),
      dialog.getByRole('button', { name: 'Proceder al Pago' }).click(),
    ]);
    await visible(gateway.getByRole('heading', { name: 'QvaPay (simulado)' }));
    await gateway.getByRole('button', { name: 'Pagar' }).click();
    await gateway.waitForURL('**/dashboard/payment?**');
    await visible(gateway.getByRole('heading', { name: 'Pago Exitoso' }));
    await visible(gateway.getByRole('table').getByText('portatil'));
    await screenshot(gateway, 'renew-paid');

    // 30 more days on the peer, shown in the list.
    await page.goto('/dashboard/peers');
    await visible(page.getByRole('row').filter({ hasText: 'portatil' }).getByText('Quedan 60 días'));
    await context.close();
  });

  test('the payment page never shows success beside an invoice it cannot find', async () => {
    const { beto } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, beto);
    await page.goto('/dashboard/payment?status=success&transaction_uuid=tx-falsa&remote_id=no-existe');
    await visible(page.getByRole('heading', { name: 'Estado de Pago Desconocido' }));
    await text(page.getByRole('alert').filter({ hasText: 'Factura no encontrada' }), /Factura no encontrada\..*tx-falsa/);
    expect(await page.getByRole('heading', { name: 'Pago Exitoso' }).count()).toBe(0);
    await screenshot(page, 'payment-not-found');
    await context.close();
  });

  test('a signed-in customer on an unknown page is led back to the dashboard', async () => {
    const { beto } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, beto);
    await page.goto('/dashboard/no-existe');
    await visible(page.getByRole('heading', { name: 'Página no encontrada' }));
    await page.getByRole('link', { name: 'Volver al Dashboard' }).click();
    await page.waitForURL('**/dashboard/home');
    await context.close();
  });

  test('the manager header fits 390 px: nothing overflows and Cerrar sesión stays on screen', async () => {
    const { admin } = harness();
    const { page, context } = await newPage(browser(), { viewport: NARROW });
    await logInStaff(page, admin);
    const header = page.locator('.mantine-AppShell-header');
    const logout = header.getByRole('button', { name: 'Cerrar sesión' });
    await visible(logout);
    const box = await logout.boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(NARROW.width);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // Who is signed in moved into the menu.
    await page.getByRole('button', { name: 'Abrir menú' }).click();
    await visible(page.getByRole('navigation', { name: 'Navegación' }).getByText(admin.username));
    await screenshot(page, 'manager-header-390');
    await context.close();
  });
});
