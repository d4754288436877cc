/**
 * The live socket when things go wrong (docs/webui.md, live socket), with fran's 'telefono': refused from the start
 * and cut in the middle of an operation by a real proxy in front of the control plane (tests/fakes/ws_proxy.py),
 * the result still shows within seconds and the busy state ends; and the control plane, started on a port of its
 * own with no client URL set, opened as `localhost`, delivers live updates.
 */
import type { Page, WebSocket } from 'playwright-core';
import { afterEach, describe, expect, test } from 'vitest';
import { harness } from './harness';
import { gone, logIn, newPage, screenshot, toastWith, useBrowser, visible } from './browser';

const browser = useBrowser();
const RECONNECTING = 'Sin conexión en tiempo real, reconectando…';
const ENDED = /La operación sobre el peer telefono terminó/;

async function proxy(action: 'block' | 'unblock' | 'drop'): Promise<void> {
  const answer = await fetch(`${harness().socket_proxy.control}/${action}`, { method: 'POST' });
  expect(answer.status).toBe(204);
}

afterEach(async () => {
  await proxy('unblock');
});

/** Logs fran in and opens the peers page; resolves with the page's live socket once the server greeted it. */
async function peersPage(page: Page, greeted: boolean): Promise<WebSocket | null> {
  // Listening from the start: the greeting comes right after the socket opens.
  const greeting = new Promise<WebSocket>((resolve) => {
    page.on('websocket', (socket) =>
      socket.on('framereceived', (frame) => {
        if (String(frame.payload).includes('"auth"')) resolve(socket);
      }),
    );
  });
  await logIn(page, harness().customers.fran);
  await page.goto('/dashboard/peers');
  await visible(page.getByRole('row').filter({ hasText: 'telefono' }));
  if (!greeted) return null;
  return Promise.race([
    greeting,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the live socket was not greeted')), 10_000)),
  ]);
}

async function regenerate(page: Page) {
  const row = page.getByRole('row').filter({ hasText: 'telefono' });
  await row.getByRole('button', { name: 'Más acciones' }).click();
  await page.getByRole('menuitem', { name: 'Regenerar Peer' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Regenerar' }).click();
  return row.getByRole('button', { name: 'Más acciones' });
}

describe('live socket', () => {
  test('refused from the start: the page says so and an operation still ends within seconds', async () => {
    await proxy('block');
    const { page } = await newPage(browser(), { baseURL: harness().socket_proxy.url });
    await peersPage(page, false);
    await visible(page.getByText(RECONNECTING));
    const actions = await regenerate(page);
    await visible(toastWith(page, 'Regenerando el peer telefono...'));
    expect(await actions.isDisabled()).toBe(true);
    await visible(toastWith(page, ENDED));
    await gone(toastWith(page, 'Regenerando el peer telefono...'));
    expect(await actions.isEnabled()).toBe(true);
    await screenshot(page, 'realtime-refused');
  });

  test('cut in the middle of an operation: the result shows, the busy state ends, the socket comes back', async () => {
    const { page } = await newPage(browser(), { baseURL: harness().socket_proxy.url });
    const socket = await peersPage(page, true);
    await proxy('block'); // cuts the open socket and refuses new ones; page loads and API calls still pass
    const actions = await regenerate(page);
    await visible(toastWith(page, 'Regenerando el peer telefono...'));
    await visible(toastWith(page, ENDED));
    expect(await actions.isEnabled()).toBe(true);
    await visible(page.getByText(RECONNECTING));
    expect(socket!.isClosed()).toBe(true);

    await proxy('unblock');
    await page.getByText(RECONNECTING).waitFor({ state: 'hidden', timeout: 45_000 });
  }, 90_000);

  test('opened as localhost on a port of its own, with no client URL set: live updates arrive', async () => {
    const { page } = await newPage(browser(), { baseURL: harness().localhost_url });
    await peersPage(page, true);
    await regenerate(page); // the push may even come before the answer: no loading toast to wait for
    // The push's own text (a poll would say the operation ended without knowing how).
    await visible(toastWith(page, 'Peer telefono regenerado correctamente.'));
    expect(await page.getByText(RECONNECTING).count()).toBe(0);
  });
});
