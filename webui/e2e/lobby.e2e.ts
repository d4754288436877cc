/**
 * A room's live lobby, "Partidas en la sala", and who can hear whom (issue 33, items 1 and 2), as the members see it.
 * kiko's node reports the games he hosts over its real agent stream (tests/browser/harness.py, POST /discovery: a
 * DiscoveryReport, as the relay's recognition sums up what it heard); lola, in his room, sees them arrive by push on
 * her phone and copies the address to join; memo, owner of another room on the same node, never sees them. An entry
 * whose last announcement the node dates 20 s back leaves 10 s later by itself, and stays gone after a reload (the
 * server expired it too): no 30 s sleep. lola announces nothing, so her row says so and the help says what to do.
 * The lobby fits from 360 to 1440 px (layout.ts) with kiko's alias and his peer's name as long as the rules allow
 * and a game name as long as a node sends (64 characters, none to break at).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Account, harness } from './harness';
import { textContrast, violations } from './axe';
import {
  api,
  logIn,
  newPage,
  ownedRoom,
  peerId,
  screenshot,
  text,
  toastWith,
  unique,
  useBrowser,
  visible,
} from './browser';
import { fitsEveryWidth, loaded } from './layout';

const browser = useBrowser();

/** The widths the lobby is measured and photographed at: phones, a tablet in landscape, laptops, a desktop. */
const LOBBY_WIDTHS = [360, 390, 1024, 1280, 1440] as const;

/** As long as a node sends a name (lobby.py keeps 64 characters), with nothing to break a line at. */
const LONG_GAME = 'Supervivencia_de_los_primos_de_Centro_Habana_con_mods_y_sin_lag_';
const QUAKE = 'Duelo de los viernes';
const MEMO_GAME = 'Mundo de Memo';
const FADING = 'Partida que se acaba';

interface Game {
  key?: string;
  game: string;
  name?: string;
  port: number;
  players?: number;
  max_players?: number;
  detail?: string;
  seconds_ago?: number;
}

/** The customer's peer's node reports what its relay heard that peer announce (harness.py, NodeReports). */
async function nodeHeard(customer: string, peer: string, games: Game[], packets?: number): Promise<void> {
  const answer = await fetch(`${harness().node_reports.control}/discovery`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ customer, peer, games, ...(packets === undefined ? {} : { packets }) }),
  });
  expect(answer.status).toBe(204);
}

/** kiko's games, long names first: Minecraft's world, a Quake III server with its map and players, and an
 * announcement nobody recognizes (it reads as "Anuncio en el puerto 7777 de <alias>"). */
const KIKO_GAMES: Game[] = [
  { key: 'mc:25565', game: 'minecraft', name: LONG_GAME, port: 25565 },
  { key: 'q3:27960', game: 'quake3', name: QUAKE, port: 27960, players: 3, max_players: 8, detail: 'q3dm17' },
  { key: 'other:7777', game: 'other', port: 7777 },
];

/**
 * kiko's host announces again every few seconds, as a LAN game does (Minecraft every 1.5 s), while `during` runs:
 * a screen measured at several widths takes longer than an entry lives.
 */
async function whileAnnouncing<T>(during: () => Promise<T>): Promise<T> {
  const { kiko } = harness().customers;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await nodeHeard(kiko.username, kiko.peers[0]!, KIKO_GAMES);
      await new Promise((resolve) => setTimeout(resolve, 4_000));
    }
  })();
  try {
    return await during();
  } finally {
    stopped = true;
    await loop;
  }
}

interface RoomView {
  id: string;
  name: string;
  created: string;
  password: string | null;
  processing: boolean;
  peers: { name: string; private_ip: string }[];
}



/** Waits until the room's change is applied on its node (no 'Operación en curso'). */
async function settledRoom(account: Account, name: string): Promise<RoomView> {
  // A plain loop: expect.poll is for tests, and this runs in beforeAll.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const room = await ownedRoom<RoomView>(account, name);
    if (room && !room.processing) return room;
    if (Date.now() > deadline) throw new Error(`room ${name} is still being applied after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Opens Salas and the room's page ('Ver'), with its data. */
async function openRoom(page: Page, room: string): Promise<void> {
  await page.goto('/dashboard/partys');
  await page.getByTestId('room-row').filter({ hasText: room }).getByRole('button', { name: 'Ver' }).click();
  await visible(page.getByRole('button', { name: 'Volver a Salas' }));
  await visible(page.getByTestId('room-lobby'));
  await loaded(page);
}

const entry = (page: Page, name: string | RegExp) => page.getByTestId('lobby-entry').filter({ hasText: name });
const member = (page: Page, peer: string) => page.getByTestId('room-peer-row').filter({ hasText: peer });

let kikoRoom = '';
let memoRoom = '';
let kikoAddress = '';
let kikoRoomId = '';
let kikoRoomCreated = 0;

describe('Partidas en la sala', () => {
  beforeAll(async () => {
    const { kiko, lola, memo } = harness().customers;
    kikoRoom = unique('LAN de Kiko ');
    memoRoom = unique('LAN de Memo ');
    // The rooms as the API makes them (the rooms walk, rooms.e2e.ts, makes one through the screens).
    for (const [owner, name] of [
      [kiko, kikoRoom],
      [memo, memoRoom],
    ] as const) {
      const peer = await peerId(owner, owner.peers[0]!);
      await api('POST', '/api/client/network/partys', { account: owner, body: { name, peer } });
    }
    const created = await settledRoom(kiko, kikoRoom);
    await api('PATCH', '/api/client/network/partys', {
      account: lola,
      body: { operation: 'join', name: kikoRoom, password: created.password, peer: await peerId(lola, lola.peers[0]!) },
    });
    const joined = await settledRoom(kiko, kikoRoom);
    expect(joined.peers.map((peer) => peer.name).sort()).toEqual([kiko.peers[0], lola.peers[0]].sort());
    kikoAddress = joined.peers.find((peer) => peer.name === kiko.peers[0])!.private_ip;
    kikoRoomId = joined.id;
    kikoRoomCreated = Date.parse(joined.created);
    await settledRoom(memo, memoRoom);
  });

  afterAll(async () => {
    const { kiko, memo } = harness().customers;
    for (const [account, name] of [
      [kiko, kikoRoom],
      [memo, memoRoom],
    ] as const) {
      const room = await ownedRoom<RoomView>(account, name);
      if (room) await api('DELETE', `/api/client/network/partys/${room.id}`, { account });
    }
  });

  test('members see the games hosted in their room, live, and copy the address; another room does not', async () => {
    const { kiko, lola, memo } = harness().customers;
    const host = await newPage(browser());
    const guest = await newPage(browser(), { viewport: { width: 390, height: 844 } });
    const stranger = await newPage(browser());
    await logIn(host.page, kiko);
    await logIn(guest.page, lola);
    await logIn(stranger.page, memo);
    await openRoom(host.page, kikoRoom);
    await openRoom(guest.page, kikoRoom);
    await openRoom(stranger.page, memoRoom);

    // Nothing announced yet: the lobby says what will show there, and every member reads "ninguno".
    for (const page of [host.page, guest.page]) {
      await visible(page.getByTestId('lobby-empty'));
      await text(member(page, lola.peers[0]!).getByTestId('room-peer-hearing'), 'Anuncios: ninguno desde que entró');
    }
    await screenshot(guest.page, 'lobby-empty-390');

    // kiko's node hears his games; then memo's node (the same server) hears memo's, in that order.
    await nodeHeard(kiko.username, kiko.peers[0]!, KIKO_GAMES);
    await nodeHeard(memo.username, memo.peers[0]!, [{ key: 'mc:25565', game: 'minecraft', name: MEMO_GAME, port: 25565 }]);

    // Both of kiko's room's members get them by push, with what to join and who hosts.
    for (const page of [host.page, guest.page]) {
      await visible(entry(page, LONG_GAME));
      await expect.poll(() => page.getByTestId('lobby-entry').count()).toBe(3);
      const minecraft = entry(page, LONG_GAME);
      await visible(minecraft.getByText('Minecraft', { exact: true }));
      await visible(minecraft.getByText(kiko.alias!, { exact: false }));
      await visible(minecraft.getByText(kiko.peers[0]!, { exact: false }));
      await text(minecraft.getByTestId('lobby-address'), `${kikoAddress}:25565`);
      const quake = entry(page, QUAKE);
      await visible(quake.getByText('Quake III', { exact: true }));
      await visible(quake.getByText('q3dm17'));
      await visible(quake.getByText('3/8 jugadores', { exact: false }));
      await text(quake.getByTestId('lobby-address'), `${kikoAddress}:27960`);
      await visible(entry(page, `Anuncio en el puerto 7777 de ${kiko.alias}`).getByText('Otro', { exact: true }));
      // Who can hear whom: kiko's node heard him (one packet per game); lola sent nothing.
      await text(member(page, kiko.peers[0]!).getByTestId('room-peer-hearing'), /^Anuncios: 3 paquetes, el último /);
      await text(member(page, lola.peers[0]!).getByTestId('room-peer-hearing'), 'Anuncios: ninguno desde que entró');
      expect(await page.getByText(MEMO_GAME).count()).toBe(0);
    }

    // memo's room shows memo's game only (pushed after kiko's, so kiko's would be there by now), and the API
    // does not show him kiko's room at all.
    await visible(entry(stranger.page, MEMO_GAME));
    expect(await stranger.page.getByTestId('lobby-entry').count()).toBe(1);
    for (const name of [LONG_GAME, QUAKE, 'Anuncio en el puerto 7777']) {
      expect(await stranger.page.getByText(name, { exact: false }).count()).toBe(0);
    }
    await expect(api('GET', `/api/client/network/partys/${kikoRoomId}`, { account: memo })).rejects.toThrow(/: 404 /);

    // lola copies the address to join kiko's world, on her phone.
    const copy = entry(guest.page, LONG_GAME).getByRole('button', { name: `Copiar dirección ${kikoAddress}:25565` });
    await copy.click();
    expect(await guest.page.evaluate(() => navigator.clipboard.readText())).toBe(`${kikoAddress}:25565`);
    await visible(toastWith(guest.page, `Dirección ${kikoAddress}:25565 copiada.`));
    await visible(entry(guest.page, LONG_GAME).getByRole('button', { name: 'Dirección copiada' }));
    await screenshot(guest.page, 'lobby-copied-390');

    // The help for lola, whose row says "ninguno": what to do when the room never hears her game.
    await guest.page.getByRole('button', { name: '¿Su partida no llega a los demás?' }).click();
    const help = guest.page.getByTestId('discovery-help');
    await visible(help.getByText('Conecte el túnel antes de abrir el juego', { exact: false }));
    await visible(help.getByText('métrica de interfaz más baja', { exact: false }));
    await visible(help.getByText('«Red privada»', { exact: false }));
    await visible(help.getByText('únase por dirección', { exact: false }));
    await screenshot(guest.page, 'lobby-help-390');

    // What it reads as to everyone: no serious or critical axe violation, the dimmed lines readable on the cards.
    const a11y = [...(await violations(guest.page)), ...(await violations(host.page))];
    expect(a11y, a11y.join('\n')).toEqual([]);
    for (const line of await guest.page.getByTestId('room-peer-hearing').all()) {
      expect(await textContrast(line)).toBeGreaterThanOrEqual(4.5);
    }
    await host.context.close();
    await guest.context.close();
    await stranger.context.close();
  });

  test('an entry leaves 30 s after its last announcement, on screen and on the server', async () => {
    const { kiko, lola } = harness().customers;
    const { page, context } = await newPage(browser(), { viewport: { width: 390, height: 844 } });
    await logIn(page, lola);
    await openRoom(page, kikoRoom);
    // The node last heard this one 20 s ago: 10 s left, with no push to say it left. An announcement older than
    // the host's membership is never shown (lobby.py: heard before it joined), so the room must be older than that.
    const ago = 20;
    const young = kikoRoomCreated + (ago + 3) * 1000 - Date.now();
    if (young > 0) await new Promise((resolve) => setTimeout(resolve, young));
    await nodeHeard(kiko.username, kiko.peers[0]!, [
      { key: 'mc:25566', game: 'minecraft', name: FADING, port: 25566, seconds_ago: ago },
    ]);
    await visible(entry(page, FADING));
    await text(entry(page, FADING).getByText(/visto hace \d+ s/), /visto hace [23]\d s/);
    await entry(page, FADING).waitFor({ state: 'hidden', timeout: 20_000 });
    // Not only the page's own clock: the server dropped it as well.
    await openRoom(page, kikoRoom);
    expect(await entry(page, FADING).count()).toBe(0);
    await context.close();
  });

  test('the lobby fits from 360 to 1440 px, with the longest names', async () => {
    const { kiko, lola } = harness().customers;
    await whileAnnouncing(async () => {
      for (const [who, name] of [
        [kiko, 'room-lobby-owner'],
        [lola, 'room-lobby-guest'],
      ] as const) {
        const { page, context } = await newPage(browser());
        await logIn(page, who);
        await fitsEveryWidth(
          page,
          name,
          async () => {
            await openRoom(page, kikoRoom);
            await expect.poll(() => page.getByTestId('lobby-entry').count()).toBe(3);
            await page.getByRole('button', { name: '¿Su partida no llega a los demás?' }).click();
            await visible(page.getByTestId('discovery-help'));
            // Back to the top, so the full-page pictures do not show the fixed header over the middle of the page.
            await page.evaluate(() => window.scrollTo(0, 0));
          },
          LOBBY_WIDTHS,
        );
        // Fitting is not enough for an address: cut over two lines, '10.61.0.15:255' over '65' reads as another
        // port. From 1024 px (the table, where the names squeeze it) each one is on a single line.
        for (const width of [1024, 1440]) {
          await page.setViewportSize({ width, height: 900 });
          await visible(page.getByRole('table').first());
          const lines = await page.getByTestId('lobby-address').evaluateAll((els) =>
            els.map((el) => Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight))),
          );
          expect(lines, `lines of each address at ${width} px`).toEqual([1, 1, 1]);
        }
        await context.close();
      }
    });
  }, 120_000);
});
