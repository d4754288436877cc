/**
 * A guest pass: olga (staff set up a 24 h pass plan) buys one from her room's page, pays at the local fake QvaPay,
 * copies the claim link; pepe opens it without a session, logs in from it, comes back and claims it: his new peer is
 * in olga's room. The link, opened again, says it was used. The room page and the claim page fit 360-1440 px.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { violations } from './axe';
import { harness } from './harness';
import { api, logIn, newPage, screenshot, unique, useBrowser, useSwitches, visible } from './browser';
import { fitsEveryWidth, openPage } from './layout';

const browser = useBrowser();
useSwitches({ allow_payments_qvapay: true, allow_payments_remesita: false, allow_partys: true });

interface Named {
  id: string;
  name: string;
}

let planId = '';
let roomId = '';

afterAll(async () => {
  const { olga } = harness().customers;
  if (roomId) await api('DELETE', `/api/client/network/partys/${roomId}`, { account: olga }).catch(() => undefined);
  if (planId) await api('PATCH', `/api/admin/plans/${planId}`, { body: { visible: false } });
});

describe('guest passes', () => {
  test('bought from the room page, paid once, claimed by a friend into that room, then used', async () => {
    const { olga, pepe } = harness().customers;
    const plan = (await api('POST', '/api/admin/plans', {
      body: { name: unique('Pase'), validity_hours: 24, price: '1.50', guest_pass: true },
    })) as Named;
    planId = plan.id;
    const peers = (await api('GET', '/api/client/accounts/peers', { account: olga })) as Named[];
    const room = unique('LAN');
    const created = (await api('POST', '/api/client/network/partys', {
      account: olga,
      body: { name: room, peer: peers.find((peer) => peer.name === 'pc-de-olga')!.id },
    })) as { data: Named };
    roomId = created.data.id;

    const owner = await newPage(browser());
    await logIn(owner.page, olga);
    await openPage(owner.page, '/dashboard/partys', 'Salas');
    await owner.page.getByRole('row').filter({ hasText: room }).getByRole('button', { name: 'Ver' }).click();
    const section = owner.page.getByTestId('guest-passes');
    await visible(section);
    await section.getByRole('combobox', { name: 'Pase' }).click();
    await owner.page.getByRole('option', { name: new RegExp(plan.name) }).click();
    await section.getByRole('button', { name: 'Comprar pase' }).click();
    await visible(owner.page.getByRole('heading', { name: 'QvaPay (simulado)' }));
    await owner.page.getByRole('button', { name: 'Pagar' }).click();
    await owner.page.waitForURL('**/dashboard/payment**');

    await openPage(owner.page, '/dashboard/partys', 'Salas');
    await owner.page.getByRole('row').filter({ hasText: room }).getByRole('button', { name: 'Ver' }).click();
    const ready = owner.page.getByTestId('guest-pass-row').filter({ hasText: 'Listo para compartir' });
    await visible(ready);
    await visible(ready.getByRole('button', { name: 'Copiar enlace' }));
    const url = (await ready.getByTestId('guest-pass-url').innerText()).trim();
    expect(new URL(url).pathname).toMatch(/^\/pase\/[\w-]{32,}$/);
    await fitsEveryWidth(owner.page, 'room-guest-passes', async () => {
      await visible(owner.page.getByTestId('guest-passes'));
    });

    // pepe: his own browser, no session yet.
    const friend = await newPage(browser());
    const path = new URL(url).pathname;
    await friend.page.goto(path);
    const card = friend.page.getByTestId('guest-pass-card');
    await visible(card.getByText('Olga le regala un lugar en su sala:'));
    await visible(card.getByText(room));
    await fitsEveryWidth(friend.page, 'guest-pass-claim', async () => {
      await visible(friend.page.getByTestId('guest-pass-card'));
    });
    expect(await violations(friend.page)).toEqual([]);
    await card.getByRole('link', { name: 'Iniciar sesión' }).click();
    await friend.page.getByLabel('Usuario').fill(pepe.username);
    await friend.page.getByLabel('Contraseña', { exact: true }).fill(pepe.password);
    await friend.page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await friend.page.waitForURL(`**${path}`);
    await friend.page.getByLabel('Nombre del peer').fill('pepe-pc');
    await friend.page.getByRole('button', { name: 'Reclamar pase' }).click();
    await visible(friend.page.getByText(`Pase reclamado: su peer pepe-pc entra en la sala ${room} durante 24 horas.`));
    await screenshot(friend.page, 'guest-pass-claimed');

    // In the room, as olga sees it: pepe's peer, and the pass in use by him.
    await owner.page.reload();
    await owner.page.getByRole('row').filter({ hasText: room }).getByRole('button', { name: 'Ver' }).click();
    await visible(owner.page.getByTestId('room-peer-row').filter({ hasText: 'pepe-pc' }).first());
    await visible(owner.page.getByTestId('guest-pass-row').filter({ hasText: 'Invitado: Pepe' }));

    // The link a second time, from anyone: used.
    const stranger = await newPage(browser());
    await stranger.page.goto(path);
    await visible(stranger.page.getByText('Este pase de invitado ya fue reclamado: cada pase sirve una sola vez.'));
    await stranger.context.close();
    await friend.context.close();
    await owner.context.close();
  });
});
