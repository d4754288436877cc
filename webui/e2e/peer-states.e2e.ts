/**
 * Every peer state says what is happening and what to do, in the server's words (issue 30, item 2), with julia's
 * peers: 'viaje' moved to Santiago 1 while that node's agent holds its answers (the move stays pending, as on a slow
 * node), then Santiago 1's agent really stopped (its stream ends; the control plane sees the node offline), which
 * leaves 'casa', placed there, on an offline server. After a reload the pending move reads as the server words it,
 * the waiting actions say why, the offline peer says what that means and which server to move to, Home sums both
 * up with their next steps, every one of these screens fits from 360 to 1440 px (layout.ts), and axe finds no
 * serious or critical violation on the peers page in these states at 390 and 1280 px (axe.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { harness } from './harness';
import { textContrast, violations } from './axe';
import { api, logIn, newPage, screenshot, useBrowser, visible } from './browser';
import { fitsEveryWidth, openPage } from './layout';

const browser = useBrowser();

const SANTIAGO = 'Santiago 1';
const MOVING = 'Moviendo a Santiago 1 (Santiago de Cuba)… su configuración actual sigue funcionando.';
const OFFLINE =
  'El servidor Santiago 1 (Santiago de Cuba) no responde: este peer no tiene conexión hasta que vuelva. Si no puede' +
  ' esperar, muévalo a otro servidor en línea y descargue de nuevo la configuración.';

interface ListedPeer {
  id: string;
  name: string;
  processing: boolean;
  server: { name: string; online?: boolean };
}

/** Drives Santiago 1's scripted agent for real (tests/browser/harness.py, NodeReports). */
async function node(action: 'stop' | 'start' | 'hold' | 'release'): Promise<void> {
  const { node_reports } = harness() as ReturnType<typeof harness> & { node_reports: { control: string } };
  const answer = await fetch(`${node_reports.control}/${action}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ server: SANTIAGO }),
  });
  expect(answer.status).toBe(204);
}

async function juliaPeers(): Promise<ListedPeer[]> {
  return (await api('GET', '/api/client/accounts/peers', { account: harness().customers.julia })) as ListedPeer[];
}

const peerRow = (page: Page, name: string) =>
  page.locator('[data-testid="peer-row"], [data-testid="peer-card"]').filter({ hasText: name });

afterAll(async () => {
  // The node comes back (its snapshot settles the held move) for the scenarios that count servers online.
  await node('release');
  await node('start');
  const deadline = Date.now() + 60_000;
  const back = async () => (await juliaPeers()).every((peer) => peer.server.online !== false && !peer.processing);
  while (!(await back())) {
    if (Date.now() > deadline) throw new Error(`${SANTIAGO} did not come back online`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});

describe('peer states in the server\'s words', () => {
  test('a pending move after a reload, then a peer whose server was really stopped', async () => {
    const { page, context } = await newPage(browser());
    await logIn(page, harness().customers.julia);

    // The move, as a customer makes it; Santiago 1 applies it but does not answer yet.
    await node('hold');
    await openPage(page, '/dashboard/peers', 'Peers Wireguard');
    await peerRow(page, 'viaje').getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Cambiar Servidor' }).click();
    const target = page.getByTestId('server-row').filter({ hasText: SANTIAGO });
    await visible(target);
    // Servers by name and location, never by address.
    expect(await page.getByText('santiago-1.vpn.test').count()).toBe(0);
    await target.getByRole('button', { name: 'Seleccionar' }).click();
    await visible(page.getByRole('dialog').getByText(`${SANTIAGO} (Santiago de Cuba)`));
    await page.getByRole('dialog').getByRole('button', { name: 'Cambiar' }).click();
    await visible(peerRow(page, 'viaje').getByTestId('peer-operation'));

    // A reload: not a bare spinner, the server's words; the waiting actions say why.
    await page.reload();
    const viaje = peerRow(page, 'viaje');
    await expect.poll(() => viaje.getByTestId('peer-operation').textContent()).toBe(MOVING);
    const download = viaje.getByRole('button', { name: 'Descargar configuración' });
    expect(await download.getAttribute('aria-disabled')).toBe('true');
    await download.hover();
    await visible(page.getByRole('tooltip').filter({ hasText: `No disponible hasta que termine: ${MOVING}` }));
    await screenshot(page, 'peer-states-pending-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await visible(peerRow(page, 'viaje').getByTestId('peer-operation'));
    await screenshot(page, 'peer-states-pending-390');
    await fitsEveryWidth(page, 'peers-pending', async () => {
      await openPage(page, '/dashboard/peers', 'Peers Wireguard');
      await visible(peerRow(page, 'viaje').getByTestId('peer-operation'));
    });

    // Santiago 1's agent stops for real: casa's server is offline.
    await node('stop');
    await expect
      .poll(async () => (await juliaPeers()).find((peer) => peer.name === 'casa')?.server.online, { timeout: 30_000 })
      .toBe(false);
    const options = (await api('GET', `/api/client/network/${(await juliaPeers()).find((p) => p.name === 'casa')!.id}`, {
      account: harness().customers.julia,
    })) as { name: string; ubication: string; recommended: boolean }[];
    const recommended = options.find((option) => option.recommended)!;
    expect(recommended).toBeDefined();

    // The page reads the list again on its own while viaje is busy; a reload shows it at once (the list may be
    // cached for up to 10 s).
    const banner = page.getByTestId('server-offline-notice');
    await expect
      .poll(
        async () => {
          await openPage(page, '/dashboard/peers', 'Peers Wireguard');
          return banner.count();
        },
        { timeout: 30_000, interval: 2_000 },
      )
      .toBe(1);
    await expect.poll(() => banner.textContent()).toContain(OFFLINE);
    await visible(banner.getByText(`Servidor recomendado: ${recommended.name} (${recommended.ubication})`));
    await page.setViewportSize({ width: 390, height: 844 });
    await visible(banner);
    await screenshot(page, 'peer-states-offline-390');
    const a11y = [...(await violations(page))];
    await page.setViewportSize({ width: 1280, height: 900 });
    await visible(banner);
    await screenshot(page, 'peer-states-offline-1280');
    // The pending and offline states read to everyone: axe finds no serious or critical violation at either width.
    a11y.push(...(await violations(page)));
    expect(a11y, a11y.join('\n')).toEqual([]);
    // The banner's orange title on its light orange, measured too (axe only says "incomplete" when a toast covers it).
    expect(await textContrast(banner.locator('.mantine-Alert-title'))).toBeGreaterThanOrEqual(4.5);
    await fitsEveryWidth(page, 'peers-offline', async () => {
      await openPage(page, '/dashboard/peers', 'Peers Wireguard');
      await visible(banner);
      await visible(banner.getByTestId('recommended-server'));
    });

    // Home sums both up, each with its next step; the offline one leads to the change-server screen.
    const attention = page.getByTestId('home-attention');
    await fitsEveryWidth(page, 'home-attention', async () => {
      await openPage(page, '/dashboard/home', 'Home');
      await visible(attention);
    });
    await expect.poll(() => attention.textContent()).toContain(`casa: ${OFFLINE}`);
    await expect.poll(() => attention.textContent()).toContain(`viaje: ${MOVING}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'peer-states-home-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, 'peer-states-home-1280');
    await attention.getByRole('link', { name: 'Cambiar de servidor' }).click();
    await visible(page.getByRole('heading', { name: 'Cambiar servidor del peer casa' }));
    await visible(page.getByText(`Servidor actual: ${SANTIAGO} (Santiago de Cuba)`));
    await visible(page.getByTestId('server-row').filter({ hasText: recommended.name }).getByTestId('recommended'));
    await screenshot(page, 'peer-states-change-server-1280');
    await context.close();
  }, 240_000);
});
