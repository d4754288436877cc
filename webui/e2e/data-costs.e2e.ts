/**
 * A hidden Peers page costs no data (docs/webui.md, live socket): while the tab is hidden the server sends none of
 * the live figures its node reports, and shown again the page shows the newest at once. fran's 'telefono' (the
 * handshakes reported are minutes old, so the server's count of connected peers stays as the other files found
 * it). The figures on a throttled link: bench/web_data.py.
 */
import type { WebSocket } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { logIn, newPage, useBrowser, visible } from './browser';
import { setHidden } from './visibility';

const browser = useBrowser();

type WithReports = ReturnType<typeof harness> & { node_reports: { control: string } };

/** fran's node reports her phone with its latest handshake `minutes` (and 20 s) ago, always from one address. */
async function nodeReports(minutes: number): Promise<void> {
  const answer = await fetch(`${(harness() as WithReports).node_reports.control}/stats`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      customer: 'fran',
      peer: 'telefono',
      endpoint: '198.51.100.61:51820',
      latest_handshake: Math.floor(Date.now() / 1000) - minutes * 60 - 20,
    }),
  });
  expect(answer.status).toBe(204);
}

describe('a hidden tab', () => {
  test('gets no live figures while hidden, and the newest when shown again', async () => {
    const { context, page } = await newPage(browser());
    const received: string[] = [];
    const sent: string[] = [];
    const opened = new Promise<WebSocket>((resolve) => page.on('websocket', resolve));
    page.on('websocket', (socket) => {
      socket.on('framereceived', ({ payload }) => received.push(String(payload)));
      socket.on('framesent', ({ payload }) => sent.push(String(payload)));
    });
    await logIn(page, harness().customers.fran);
    await page.getByRole('link', { name: 'Peers' }).first().click();
    await opened;
    await visible(page.getByText('telefono', { exact: true }).first());

    await nodeReports(9);
    await visible(page.getByText('Último handshake: hace 9 min', { exact: false }));

    await setHidden(page, true);
    await expect.poll(() => sent.some((frame) => frame.includes('"pause"'))).toBe(true);
    const before = received.length;
    await nodeReports(6);
    await nodeReports(5);
    await page.waitForTimeout(2_000); // a push would have come within this (it took milliseconds above)
    expect(received.slice(before).filter((frame) => frame.includes('peer_stats'))).toEqual([]);
    await visible(page.getByText('Último handshake: hace 9 min', { exact: false }));

    await setHidden(page, false);
    await visible(page.getByText('Último handshake: hace 5 min', { exact: false }));
    expect(received.slice(before).filter((frame) => frame.includes('peer_stats'))).toHaveLength(1);
    await context.close();
  });
});
