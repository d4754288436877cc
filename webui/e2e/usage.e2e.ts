/**
 * Usage history (docs/usage.md) with ana's 'movil', whose traffic the harness wrote in the current UTC hour as the
 * meter writes it: 'Usado este mes' in the table, the 'Consumo' chart in 'Detalles' with its period switch, and the
 * manager overview's traffic per server. Counting from the agents' reports is tested in tests/api/test_usage.py.
 */
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { logIn, logInStaff, newPage, screenshot, text, useBrowser, visible } from './browser';

const browser = useBrowser();

describe('usage history', () => {
  test('a customer sees what a peer used this month and its chart; the admin sees it per server', async () => {
    const { customers, usage, admin, servers } = harness();
    const { page, context } = await newPage(browser());
    await logIn(page, customers[usage.customer]);
    await page.goto('/dashboard/peers');
    const row = page.getByRole('row').filter({ hasText: usage.peer });
    await visible(page.getByRole('columnheader', { name: 'Usado este mes' }));
    // 1536 MiB down and 200 MiB up: 1.7 GB in all.
    await text(row.getByTestId('peer-month-usage'), '1.7 GB↓ 1.5 GB · ↑ 200.0 MB');
    // Her other peer moved nothing: zero, not a dash (the figures came).
    await text(page.getByRole('row').filter({ hasText: 'portatil' }).getByTestId('peer-month-usage'), '0 B↓ 0 B · ↑ 0 B');

    await row.getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Detalles' }).click();
    const dialog = page.getByRole('dialog', { name: `Detalles del peer ${usage.peer}` });
    await text(dialog.getByTestId('usage-totals'), 'Bajada 1.5 GB · Subida 200.0 MB en los últimos 30 días');
    const chart = dialog.getByRole('img', { name: 'Consumo en los últimos 30 días' });
    await visible(chart);
    // Thirty days, one with traffic: recharts draws a bar for each series of that day.
    await expect.poll(() => chart.locator('.recharts-bar-rectangle path').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await screenshot(page, 'usage-details-30d');

    await dialog.getByText('24 horas').click();
    await text(dialog.getByTestId('usage-totals'), 'Bajada 1.5 GB · Subida 200.0 MB en las últimas 24 horas');
    await visible(dialog.getByRole('img', { name: 'Consumo en las últimas 24 horas' }));
    await dialog.getByText('12 meses').click();
    await text(dialog.getByTestId('usage-totals'), 'Bajada 1.5 GB · Subida 200.0 MB en los últimos 12 meses');
    await context.close();

    // The admin's overview: this month per server and in total.
    const staff = await newPage(browser());
    await logInStaff(staff.page, admin);
    const traffic = staff.page.getByTestId('overview-traffic');
    await visible(traffic.getByRole('heading', { name: 'Tráfico este mes' }));
    const habana = servers[0]!.name;
    await text(traffic.getByRole('row').filter({ hasText: habana }), `${habana}1.5 GB200.0 MB`);
    await text(traffic.getByRole('row').filter({ hasText: 'Total' }), 'Total1.5 GB200.0 MB');
    await visible(traffic.getByRole('img', { name: 'Tráfico total por día en los últimos 30 días' }));
    await screenshot(staff.page, 'usage-manager-overview');
    await staff.context.close();
  });
});
