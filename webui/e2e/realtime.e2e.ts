/**
 * The live socket when things go wrong (docs/webui.md, live socket), with fran's 'telefono': refused from the start,
 * and cut in the middle of an operation (accepted by the server, its push held back by a real proxy in front of the
 * control plane, tests/fakes/ws_proxy.py, then the socket cut), the result still shows within seconds and the busy
 * state ends; and the control plane, started on a port of its own with no client URL set, opened as `localhost`,
 * delivers live updates.
 */
import { readFileSync } from 'node:fs';
import type { Page, WebSocket } from 'playwright-core';
import { afterEach, describe, expect, test } from 'vitest';
import { harness } from './harness';
import { gone, logIn, newPage, screenshot, toastWith, useBrowser, visible } from './browser';

const browser = useBrowser();
const RECONNECTING = 'Sin conexión en tiempo real, reconectando…';
// The server's words (docs/api.md, "Peer operations"): while it runs, and how it ended, by push or by a poll alike.
const RUNNING = 'Generando claves nuevas para telefono en habana-1 (La Habana)… su configuración actual sigue funcionando hasta que terminen.';
const ENDED = 'Peer telefono regenerado correctamente.';

/** Whether the peer's actions wait for an operation (marked aria-disabled, described by its text). */
const waiting = async (actions: ReturnType<Page['getByRole']>) => (await actions.getAttribute('aria-disabled')) === 'true';

async function proxy(action: 'block' | 'unblock' | 'drop' | 'hold'): Promise<void> {
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

/** The private key of telefono's configuration, downloaded as a customer does. */
async function privateKey(page: Page): Promise<string> {
  const row = page.getByRole('row').filter({ hasText: 'telefono' });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    row.getByRole('button', { name: 'Descargar configuración' }).click(),
  ]);
  const key = /^PrivateKey = (.+)$/m.exec(readFileSync((await download.path())!, 'utf8'))?.[1];
  expect(key).toBeDefined();
  return key ?? '';
}

/**
 * Records in the page, from now on, whether telefono's actions were ever disabled (busy), and returns how to read
 * it. A read from here after the loading toast could come too late: without pushes the busy state ends at the
 * first poll, 3 s after it began, and a loaded machine can take that long between two steps.
 */
async function watchBusy(page: Page): Promise<() => Promise<boolean>> {
  await page.evaluate(() => {
    const seen = window as unknown as { sawBusy?: boolean };
    seen.sawBusy = false;
    const observer = new MutationObserver(() => {
      for (const row of document.querySelectorAll('tr')) {
        const actions = row.querySelector<HTMLButtonElement>('button[aria-label="Más acciones"]');
        if (row.textContent?.includes('telefono') && actions?.getAttribute('aria-disabled') === 'true') {
          seen.sawBusy = true;
          observer.disconnect();
        }
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-disabled'] });
  });
  return () => page.evaluate(() => (window as unknown as { sawBusy?: boolean }).sawBusy === true);
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
    const sawBusy = await watchBusy(page);
    const actions = await regenerate(page);
    await visible(toastWith(page, RUNNING));
    expect(await sawBusy()).toBe(true);
    await visible(toastWith(page, ENDED));
    await gone(toastWith(page, RUNNING));
    expect(await waiting(actions)).toBe(false);
    await screenshot(page, 'realtime-refused');
  });

  test('cut after the operation was accepted, before its push: the result shows, the socket comes back', async () => {
    const { page } = await newPage(browser(), { baseURL: harness().socket_proxy.url });
    const socket = (await peersPage(page, true))!;
    const before = await privateKey(page);
    const pushes: string[] = [];
    socket.on('framereceived', (frame) => pushes.push(String(frame.payload)));

    // The node confirms at once, so its push may even come before the 202: from now on what the control plane
    // sends on the socket stays in the proxy, then the socket is cut as soon as the operation was accepted.
    await proxy('hold');
    const accepted = page.waitForResponse(
      (answer) => answer.request().method() === 'PATCH' && /"regenerate"/.test(answer.request().postData() ?? ''),
    );
    const actions = await regenerate(page);
    expect((await accepted).status()).toBe(202);
    await proxy('block'); // cuts the socket with the push held back, and refuses new ones until unblocked

    await visible(page.getByText(RECONNECTING));
    // The result, without the push: the list read after the answer ends the operation, and tells it in the words
    // the push had (the peer keeps its last outcome).
    await visible(toastWith(page, ENDED));
    await gone(toastWith(page, RUNNING));
    await expect.poll(() => waiting(actions), { timeout: 10_000 }).toBe(false);
    expect(await privateKey(page)).not.toBe(before);
    // What this scenario is about: the push never reached the page, its toast never showed.
    expect(pushes.filter((payload) => payload.includes('updated_peer'))).toEqual([]);
    expect(socket.isClosed()).toBe(true);

    // Back: the notice goes once a new socket opens (after a backoff of up to a minute at worst).
    await proxy('unblock');
    await page.getByText(RECONNECTING).waitFor({ state: 'hidden', timeout: 75_000 });
  }, 150_000);

  test('opened as localhost on a port of its own, with no client URL set: live updates arrive', async () => {
    const { page } = await newPage(browser(), { baseURL: harness().localhost_url });
    const socket = (await peersPage(page, true))!;
    // The push itself: a poll would now tell the same words, so the toast alone does not show the socket works.
    const pushed = new Promise<boolean>((resolve) => {
      socket.on('framereceived', (frame) => {
        if (String(frame.payload).includes('"updated_peer"')) resolve(true);
      });
      setTimeout(() => resolve(false), 15_000);
    });
    await regenerate(page); // the push may even come before the answer: no loading toast to wait for
    expect(await pushed).toBe(true);
    await visible(toastWith(page, ENDED));
    expect(await page.getByText(RECONNECTING).count()).toBe(0);
  });
});
