/**
 * The room owner's "move all my peers" (docs/rooms.md, "Moving the group"), as rita sees it: her two peers are on
 * habana-1, saul's three on cancun-1 (the harness's second server with rooms), so her room's page recommends cancun-1
 * and offers "Mover mis peers aquí (2)". cancun-1's scripted agent first refuses one of her peers for real (harness.py,
 * POST /refuse: the node answers the change with a failure): one result says 1 of 2 moved and why the other did not,
 * and nothing else is said about it (the failed peer's own change-server error used to show too). Then she moves the
 * last one, with her peers page open in a second tab: one result on each page, no per-peer toast, both lists right.
 * The room page with its move section is photographed and measured at 360 and 1280 px.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Account, harness } from './harness';
import {
  api,
  logIn,
  newPage,
  ownedRoom,
  PATIENCE,
  peerId,
  screenshot,
  text,
  toastWith,
  unique,
  useBrowser,
  visible,
} from './browser';
import { layoutProblems, loaded, settle } from './layout';

const browser = useBrowser();

const CANCUN = 'cancun-1';
const HABANA = 'habana-1';
const WHERE = 'cancun-1 (Cancún)';
/** A text found anywhere in a longer one (the section's text runs its lines together). */
const within = (words: string) => new RegExp(words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

interface RoomView {
  id: string;
  name: string;
  password: string | null;
  processing: boolean;
  peers: { name: string }[];
}



async function settledRoom(account: Account, name: string, members: number): Promise<RoomView> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const room = await ownedRoom<RoomView>(account, name);
    if (room && !room.processing && room.peers.length === members) return room;
    if (Date.now() > deadline) throw new Error(`room ${name} is not settled with ${members} members after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Every toast the page shows from now on, in order (they close by themselves: counted as they appear). */
async function recordToasts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { shownToasts: string[] }).shownToasts = seen;
    const marked = new WeakSet<Element>();
    new MutationObserver(() => {
      document.querySelectorAll('.mantine-Notification-root').forEach((toast) => {
        if (marked.has(toast)) return;
        marked.add(toast);
        seen.push((toast.textContent ?? '').trim());
      });
    }).observe(document, { subtree: true, childList: true });
  });
}

const shownToasts = (page: Page) => page.evaluate(() => (window as unknown as { shownToasts: string[] }).shownToasts);

/** The toasts shown since `from`, once a second has passed without a new one (a late second message would show). */
async function toastsSince(page: Page, from: number): Promise<string[]> {
  let count = -1;
  for (;;) {
    await page.waitForTimeout(1_500);
    const now = (await shownToasts(page)).length;
    if (now === count) break;
    count = now;
  }
  return (await shownToasts(page)).slice(from);
}

async function openRoom(page: Page, room: string): Promise<void> {
  await page.goto('/dashboard/partys');
  await page.getByTestId('room-row').filter({ hasText: room }).getByRole('button', { name: 'Ver' }).click();
  await visible(page.getByRole('button', { name: 'Volver a Salas' }));
  await visible(page.getByTestId('room-servers'));
  await loaded(page);
}

const member = (page: Page, peer: string) => page.getByTestId('room-peer-row').filter({ hasText: peer });

/** The room page's move section fits at 360 and 1280 px (photographed into e2e/artifacts). */
async function fitsPhoneAndLaptop(page: Page, name: string): Promise<void> {
  const failures: string[] = [];
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await settle(page);
    await screenshot(page, `roommove-${name}-${width}`);
    const problems = await layoutProblems(page);
    if (problems.length > 0) failures.push(`${name} at ${width} px:\n  ${problems.join('\n  ')}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  expect(failures, failures.join('\n')).toEqual([]);
}

let roomName = '';

describe('moving all my peers to the recommended server', () => {
  beforeAll(async () => {
    const { rita, saul } = harness().customers;
    roomName = unique('LAN de Rita ');
    const [first, second] = rita.peers;
    await api('POST', '/api/client/network/partys', {
      account: rita,
      body: { name: roomName, peer: await peerId(rita, first!) },
    });
    const created = await settledRoom(rita, roomName, 1);
    let members = 1;
    for (const [account, peer] of [[rita, second!], ...saul.peers.map((p) => [saul, p] as const)] as const) {
      await api('PATCH', '/api/client/network/partys', {
        account,
        body: { operation: 'join', name: roomName, password: created.password, peer: await peerId(account, peer) },
      });
      members += 1;
      await settledRoom(rita, roomName, members);
    }
  });

  afterAll(async () => {
    const { rita } = harness().customers;
    const room = await ownedRoom<RoomView>(rita, roomName);
    if (room) await api('DELETE', `/api/client/network/partys/${room.id}`, { account: rita });
  });

  test('one peer refused by the node: one partial result, and each peer shown where it is', async () => {
    const { rita } = harness().customers;
    const [pc, movil] = rita.peers as [string, string];
    const { page } = await newPage(browser());
    await recordToasts(page);
    await logIn(page, rita);
    await openRoom(page, roomName);

    const best = page.getByTestId('room-best-server');
    await text(best, within(`Servidor recomendado: ${WHERE}`));
    const move = page.getByRole('button', { name: 'Mover mis peers aquí (2)' });
    await visible(move);
    await text(member(page, pc), new RegExp(HABANA));
    await fitsPhoneAndLaptop(page, 'offered');

    // cancun-1's node will refuse movil for real (its agent answers the change with a failure).
    const refused = await fetch(`${harness().node_reports.control}/refuse`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ server: CANCUN, customer: rita.username, peer: movil }),
    });
    expect(refused.status).toBe(204);

    const before = (await shownToasts(page)).length;
    await move.click();
    const result =
      `1 de 2 peers pasaron a ${WHERE}. Descargue de nuevo la configuración de «${pc}». «${movil}» no se movió` +
      ' (el servidor no pudo aplicar el cambio): sigue en su servidor y su configuración sigue funcionando.';
    await visible(toastWith(page, result));
    // The call's answer ("Moviendo 2 peers…") and the one result, in either order (a quick node's result may come
    // before the answer): nothing about movil on its own.
    const shown = await toastsSince(page, before);
    expect(shown).toHaveLength(2);
    expect(shown).toEqual(
      expect.arrayContaining([expect.stringMatching(within(`Moviendo 2 peers a ${WHERE}…`)), expect.stringContaining(result)]),
    );

    // The page shows each peer where it is now, and offers to move the one left.
    await text(member(page, pc), new RegExp(CANCUN));
    await text(member(page, movil), new RegExp(HABANA));
    await visible(page.getByRole('button', { name: 'Mover mis peers aquí (1)' }));
    await fitsPhoneAndLaptop(page, 'partial');
  });

  test('the last peer moves: one result on the room page and on the peers page, both lists right', async () => {
    const { rita } = harness().customers;
    const [pc, movil] = rita.peers as [string, string];
    const room = await newPage(browser());
    const peers = await newPage(browser(), { viewport: { width: 1280, height: 900 } });
    for (const { page } of [room, peers]) await recordToasts(page);
    await logIn(room.page, rita);
    await openRoom(room.page, roomName);
    // The same account in another window, on the peers page (where a peer's own outcome would show as a toast).
    await logIn(peers.page, rita);
    await peers.page.goto('/dashboard/peers');
    const movilRow = peers.page.getByRole('row').filter({ hasText: movil });
    await visible(movilRow.getByText(HABANA, { exact: true }));

    const fromRoom = (await shownToasts(room.page)).length;
    const fromPeers = (await shownToasts(peers.page)).length;
    await room.page.getByRole('button', { name: 'Mover mis peers aquí (1)' }).click();
    const result = `1 de 1 peer pasaron a ${WHERE}. Descargue de nuevo la configuración de «${movil}».`;
    await visible(toastWith(room.page, result));
    const onRoom = await toastsSince(room.page, fromRoom);
    expect(onRoom).toHaveLength(2);
    expect(onRoom).toEqual(
      expect.arrayContaining([expect.stringMatching(within(`Moviendo 1 peer a ${WHERE}…`)), expect.stringContaining(result)]),
    );
    // The peers page hears the result once, and no "El peer … ya está en …" of the peer's own. Read from the record:
    // the result is a success toast (3 s) that arrived with the room page's, which the lines above watched for
    // longer than that.
    await expect
      .poll(async () => (await shownToasts(peers.page)).slice(fromPeers).some((shown) => shown.includes(result)), {
        timeout: PATIENCE,
      })
      .toBe(true);
    expect(await toastsSince(peers.page, fromPeers)).toEqual([expect.stringContaining(result)]);
    await visible(movilRow.getByText(CANCUN, { exact: true }));

    for (const peer of [pc, movil]) await text(member(room.page, peer), new RegExp(CANCUN));
    await expect.poll(() => room.page.getByTestId('room-move-all').count()).toBe(0);
    await screenshot(room.page, 'roommove-all-moved-1280');
  });
});
