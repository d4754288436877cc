/**
 * "Alguien paga por mí": ana shares a payment link from the plans page; a stranger (another browser context, never
 * logged in) opens it, pays at the local fake QvaPay, comes back to the link's page told that the payment arrived,
 * and ana's peer is extended. Then ana revokes the link and the stranger's page says so.
 */
import { describe, expect, test } from 'vitest';
import { violations } from './axe';
import { harness } from './harness';
import { logIn, newPage, screenshot, useBrowser, useSwitches, visible } from './browser';

const browser = useBrowser();
useSwitches({ allow_payments_qvapay: true, allow_payments_remesita: false });

describe('payment links', () => {
  test('shared, opened without an account, paid once, then revoked', async () => {
    const { ana } = harness().customers;
    const owner = await newPage(browser());
    await logIn(owner.page, ana);
    await owner.page.goto('/dashboard/plans');
    const card = owner.page
      .locator('.mantine-Card-root')
      .filter({ has: owner.page.getByRole('heading', { name: 'Mensual', level: 3, exact: true }) });
    await card.getByRole('button', { name: 'Compartir enlace de pago' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'Compartir enlace de pago' });
    await visible(dialog);
    await dialog.getByRole('combobox', { name: 'Peer' }).click();
    await owner.page.getByRole('option', { name: 'movil' }).click();
    await dialog.getByRole('button', { name: 'Crear enlace' }).click();
    const field = dialog.getByLabel('Enlace de pago de movil').first();
    await visible(field);
    const url = await field.inputValue();
    await screenshot(owner.page, 'payment-link-shared');

    // The stranger: a context of its own, no session.
    const payer = await newPage(browser());
    await payer.page.goto(new URL(url).pathname);
    const linkCard = payer.page.getByTestId('payment-link-card');
    await visible(linkCard.getByText('Plan Mensual'));
    await visible(linkCard.getByText('Para el peer: movil'));
    await visible(linkCard.getByText('$5.00 USD'));
    await screenshot(payer.page, 'payment-link-payer');
    expect(await violations(payer.page)).toEqual([]);
    await payer.page.setViewportSize({ width: 360, height: 740 });
    await screenshot(payer.page, 'payment-link-payer-360');
    expect(await violations(payer.page)).toEqual([]);
    await linkCard.getByRole('button', { name: 'Pagar con QvaPay' }).click();
    await visible(payer.page.getByRole('heading', { name: 'QvaPay (simulado)' }));
    await payer.page.getByRole('button', { name: 'Pagar' }).click();
    await payer.page.waitForURL('**/pagar/**payment=**');
    await visible(payer.page.getByText('Pago recibido'));
    await screenshot(payer.page, 'payment-link-paid');

    // ana revokes it: the stranger's page, reloaded, says the link no longer works.
    await dialog.getByRole('button', { name: 'Anular' }).first().click();
    await visible(owner.page.getByText('Enlace de pago anulado: ya nadie puede pagar con él.'));
    await payer.page.goto(new URL(url).pathname);
    await visible(payer.page.getByText('Este enlace de pago fue anulado por quien lo compartió. Pídale uno nuevo.'));
    await payer.context.close();
    await owner.context.close();
  });
});
