/**
 * Every screen fits every screen (issue 30, item 1): at each width of `WIDTHS`, from a 360 px phone to a 1440 px
 * desktop, the customer's and the manager's pages have nothing to scroll sideways, every control on screen and no
 * text cut off or spilling out of its box (`layoutProblems` in layout.ts). hugo has several peers with names as
 * long as the rule allows, one of them used on two devices, so the peers page shows the states that widen it.
 * Screenshots of every width land in e2e/artifacts/layout-<page>-<width>.png: the check measures, the pictures are
 * for looking at. The states of a pending move and of a server really stopped are measured the same way, in
 * peer-states.e2e.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { harness } from './harness';
import { api, logIn, logInStaff, newPage, useBrowser, visible } from './browser';
import { fitsEveryWidth, openPage } from './layout';

const browser = useBrowser();

const SHARED = 'laptop-de-la-oficina-principal-1';

/** The node of hugo's peer reports it at `endpoint`, its handshake `minutes` ago (device-insight.e2e.ts). */
async function nodeReports(endpoint: string, minutes: number): Promise<void> {
  const { node_reports } = harness() as ReturnType<typeof harness> & { node_reports: { control: string } };
  const answer = await fetch(`${node_reports.control}/stats`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      customer: 'hugo',
      peer: SHARED,
      endpoint,
      latest_handshake: Math.floor(Date.now() / 1000) - minutes * 60 - 20,
    }),
  });
  expect(answer.status).toBe(204);
}

let customer: Awaited<ReturnType<typeof newPage>>;
let staff: Awaited<ReturnType<typeof newPage>>;

describe('every screen fits every width', () => {
  beforeAll(async () => {
    const { hugo } = harness().customers;
    customer = await newPage(browser());
    await logIn(customer.page, hugo);
    // His laptop's configuration taken in turns by two devices: the peers page shows the warning.
    await openPage(customer.page, '/dashboard/peers', 'Peers Wireguard');
    await visible(customer.page.getByText(SHARED, { exact: true }).first());
    for (const [endpoint, minutes] of [
      ['198.51.100.41:51820', 13],
      ['203.0.113.90:40112', 11],
      ['198.51.100.41:51820', 9],
      ['203.0.113.90:40112', 7],
    ] as const) {
      await nodeReports(endpoint, minutes);
      await visible(customer.page.getByText(`Último handshake: hace ${minutes} min`, { exact: false }));
    }
    await visible(customer.page.getByTestId('shared-config-warning'));
    staff = await newPage(browser());
    await logInStaff(staff.page, harness().admin);
  });

  afterAll(async () => {
    // New keys end the warning, as the other scenarios (the manager's count of peers on two devices) expect.
    const { hugo } = harness().customers;
    const peers = (await api('GET', '/api/client/accounts/peers', { account: hugo })) as { id: string; name: string }[];
    const shared = peers.find((peer) => peer.name === SHARED)!;
    await api('PATCH', `/api/client/accounts/peers/${shared.id}`, { account: hugo, body: { operation: 'regenerate' } });
    await customer?.context.close();
    await staff?.context.close();
  });

  test('peers: long names, the two-devices warning, every action beside its peer', async () => {
    const { page } = customer;
    await fitsEveryWidth(page, 'peers', async () => {
      await openPage(page, '/dashboard/peers', 'Peers Wireguard');
      for (const name of harness().customers.hugo.peers) await visible(page.getByText(name, { exact: true }).first());
    });
  });

  test('home', async () => {
    const { page } = customer;
    await fitsEveryWidth(page, 'home', () => openPage(page, '/dashboard/home', 'Home'));
  });

  test('rooms', async () => {
    const { page } = customer;
    await fitsEveryWidth(page, 'rooms', () => openPage(page, '/dashboard/partys', 'Salas'));
  });

  test('plans', async () => {
    const { page } = customer;
    await fitsEveryWidth(page, 'plans', () => openPage(page, '/dashboard/plans', 'Planes'));
  });

  test('settings', async () => {
    const { page } = customer;
    await fitsEveryWidth(page, 'settings', () => openPage(page, '/dashboard/settings', 'Configuración de Cuenta'));
  });

  test('change server', async () => {
    const { page } = customer;
    await fitsEveryWidth(page, 'change-server', async () => {
      await openPage(page, '/dashboard/peers', 'Peers Wireguard');
      await page.getByRole('button', { name: 'Más acciones' }).first().click();
      await page.getByRole('menuitem', { name: 'Cambiar Servidor' }).click();
      await visible(page.getByTestId('server-row').first());
    });
  });

  test('manager overview', async () => {
    const { page } = staff;
    await fitsEveryWidth(page, 'manager-overview', () => openPage(page, '/manager/dashboard', 'Resumen'));
  });

  test('manager users', async () => {
    const { page } = staff;
    await fitsEveryWidth(page, 'manager-users', () => openPage(page, '/manager/dashboard/users', 'Usuarios'));
  });

  test('manager servers', async () => {
    const { page } = staff;
    await fitsEveryWidth(page, 'manager-servers', () => openPage(page, '/manager/dashboard/servers', 'Servidores'));
  });
});
