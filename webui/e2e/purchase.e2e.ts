/**
 * Buying a plan: the purchase dialog, the gateway's page in a new window (the local fake QvaPay: 'Pagar' notifies the
 * control plane for real, which creates the peer through the scripted agent), the payment page, and a cancellation.
 */
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import {
  logIn,
  NARROW,
  newPage,
  screenshot,
  setSwitches,
  text,
  title,
  unique,
  useBrowser,
  useSwitches,
  visible,
  WIDE,
} from './browser';

const browser = useBrowser();
useSwitches({ allow_payments_qvapay: true, allow_payments_remesita: false });

/** Opens the purchase dialog of a plan on /dashboard/plans. */
async function choosePlan(page: Page, plan: string) {
  await page.goto('/dashboard/plans');
  const card = page.locator('.mantine-Card-root').filter({ has: page.getByRole('heading', { name: plan, level: 3, exact: true }) });
  await card.getByRole('button', { name: 'Seleccionar Plan' }).click();
  const dialog = page.getByRole('dialog', { name: 'Adquirir plan' });
  await visible(dialog);
  return dialog;
}

/** Clicks 'Proceder al Pago' and returns the window it opens once the gateway's page shows. */
async function proceedToPayment(
  page: Page,
  dialog: ReturnType<Page['getByRole']>,
  gatewayName = 'QvaPay',
): Promise<Page> {
  const [gateway] = await Promise.all([
    page.context().waitForEvent('page'),
    dialog.getByRole('button', { name: 'Proceder al Pago' }).click(),
  ]);
  await visible(gateway.getByRole('heading', { name: `${gatewayName} (simulado)` }));
  return gateway;
}

describe('purchase', () => {
  test('a new peer: dialog, gateway, Pago Exitoso with the invoice, and the peer appears', async () => {
    const { ana } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, ana);
    const dialog = await choosePlan(page, 'Mensual');
    await visible(page.getByText('Los pagos se procesan de forma segura a través de QvaPay', { exact: false }));
    await visible(dialog.getByText('Precio: $5.00 USD'));
    await visible(dialog.getByText('Validez: 1 mes'));
    // ana has peers, so 'Peer Existente' is offered first; a new peer needs a name.
    await visible(dialog.getByText('Peer Existente'));
    await dialog.getByText('Nuevo Peer').click();
    await dialog.getByRole('button', { name: 'Proceder al Pago' }).click();
    await text(
      dialog.getByRole('alert'),
      'Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer',
    );
    const peerName = unique('compra');
    await dialog.getByLabel('Nombre del nuevo peer').fill(peerName);
    await screenshot(page, 'purchase-dialog');
    const gateway = await proceedToPayment(page, dialog);
    await visible(gateway.getByText('5.00 USD'));
    await screenshot(gateway, 'purchase-gateway');
    // Meanwhile the first window shows the peers: the new peer must arrive there by push (created_peer).
    await page.getByRole('navigation', { name: 'Navegación' }).getByRole('link', { name: 'Peers' }).click();
    await visible(page.getByRole('heading', { name: 'Peers Wireguard' }));

    await gateway.getByRole('button', { name: 'Pagar' }).click();
    await gateway.waitForURL('**/dashboard/payment?**');
    await title(gateway, 'Resultado del pago - VPN Pruebas');
    await visible(gateway.getByText('Pago Exitoso'));
    const summary = gateway.getByRole('table');
    await visible(summary.getByRole('row').filter({ hasText: 'Plan' }).getByText('Mensual'));
    await visible(summary.getByRole('row').filter({ hasText: 'Peer' }).getByText(peerName));
    await visible(summary.getByRole('row').filter({ hasText: 'Monto' }).getByText('5.00 USD'));
    await text(summary.getByRole('row').filter({ hasText: 'ID de transacción' }).getByRole('cell'), /^[0-9a-f-]{36}$/);
    await screenshot(gateway, 'payment-success');
    await gateway.getByRole('link', { name: 'Volver al inicio' }).click();
    await gateway.waitForURL('**/dashboard/home');

    // The paid peer appeared in the open peers page without a reload, active.
    const row = page.getByRole('row').filter({ hasText: peerName });
    await visible(row.getByText('Activo').first());
    await screenshot(page, 'purchase-peer-arrived');
    await context.close();
  });

  test('an existing peer through Remesita, canceled at the gateway: Pago Cancelado', async () => {
    const { ana } = harness().customers;
    await setSwitches({ allow_payments_remesita: true });
    const { page, context } = await newPage(browser());
    await logIn(page, ana);
    const dialog = await choosePlan(page, 'Trimestral');
    await visible(page.getByText('a través de QvaPay o Remesita', { exact: false }));
    await dialog.getByRole('combobox', { name: 'Peer' }).click();
    await page.getByRole('option', { name: 'movil' }).click();
    // Two gateways on: the customer picks one.
    await dialog.getByText('Remesita', { exact: true }).click();
    await screenshot(page, 'purchase-dialog-two-gateways');
    const gateway = await proceedToPayment(page, dialog, 'Remesita');
    await visible(gateway.getByText('13.50 USD'));
    await gateway.getByRole('button', { name: 'Cancelar' }).click();
    await gateway.waitForURL('**/dashboard/payment?**');
    await visible(gateway.getByText('Pago Cancelado'));
    await visible(gateway.getByRole('table').getByText('movil'));
    await screenshot(gateway, 'payment-canceled');
    await context.close();
  });

  test('the plans tab waits for the payment window, hears the cancel, retries and sees the payment land', async () => {
    // beto has a single peer: it is chosen already.
    const { beto } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, beto);
    let dialog = await choosePlan(page, 'Mensual');
    await expect.poll(() => dialog.getByRole('combobox', { name: 'Peer' }).inputValue()).toBe('consola');
    let gateway = await proceedToPayment(page, dialog);
    await page.bringToFront();
    const waiting = page.getByTestId('payment-waiting');
    await visible(waiting.getByText('Complete el pago en la ventana de QvaPay'));
    await screenshot(page, 'purchase-waiting');
    await page.setViewportSize(NARROW);
    await screenshot(page, 'purchase-waiting-390');
    await page.setViewportSize(WIDE);

    // Canceled at the gateway: the return page offers the plans, and the waiting tab says so by itself (the control
    // plane read the cancel back from the gateway, so the invoice is canceled, not left pending).
    await gateway.getByRole('button', { name: 'Cancelar' }).click();
    await gateway.waitForURL('**/dashboard/payment?**');
    await visible(gateway.getByText('Pago Cancelado'));
    await visible(gateway.getByRole('link', { name: 'Volver a los planes' }));
    await visible(gateway.getByText('no se le cobró nada', { exact: false }));
    await screenshot(gateway, 'payment-canceled-retry');
    await gateway.setViewportSize(NARROW);
    await screenshot(gateway, 'payment-canceled-retry-390');
    await gateway.close();
    await page.bringToFront();
    await visible(waiting.getByText('El pago se canceló en QvaPay; no se le cobró nada.', { exact: false }));
    await screenshot(page, 'purchase-waiting-canceled');
    await page.setViewportSize(NARROW);
    await screenshot(page, 'purchase-waiting-canceled-390');
    await page.setViewportSize(WIDE);

    // Trying again opens the same plan for the same peer; this time it is paid and the tab updates itself.
    await waiting.getByRole('button', { name: 'Intentar de nuevo' }).click();
    dialog = page.getByRole('dialog', { name: 'Adquirir plan' });
    await visible(dialog.getByText('Mensual'));
    gateway = await proceedToPayment(page, dialog);
    await page.bringToFront();
    await visible(waiting.getByText('Complete el pago en la ventana de QvaPay'));
    await gateway.getByRole('button', { name: 'Pagar' }).click();
    await gateway.waitForURL('**/dashboard/payment?**');
    await page.bringToFront();
    await visible(waiting.getByText('Pago recibido'));
    await visible(waiting.getByText('QvaPay confirmó el pago del plan Mensual para el peer consola', { exact: false }));
    await screenshot(page, 'purchase-waiting-paid');
    await context.close();
  });

  test('an unknown status and no invoice: Estado de Pago Desconocido', async () => {
    const { page, context } = await newPage(browser());
    await logIn(page, harness().customers.beto);
    await page.goto('/dashboard/payment?status=raro');
    await visible(page.getByText('Estado de Pago Desconocido'));
    await visible(page.getByText('ID de transacción: No disponible'));
    await screenshot(page, 'payment-unknown');
    await context.close();
  });
});
