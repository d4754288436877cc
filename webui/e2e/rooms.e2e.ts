/**
 * Rooms (salas): ana creates one, eva joins it from a second browser context with the password ana reads, ana sees
 * eva's peer arrive by push and removes it, then deletes the room. Both sides are asserted as each user sees them.
 */
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { logIn, newPage, screenshot, toastWith, unique, useBrowser, visible, gone } from './browser';

const browser = useBrowser();

async function openRooms(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Navegación' }).getByRole('link', { name: 'Salas', exact: true }).click();
  await page.waitForURL('**/dashboard/partys');
  await visible(page.getByRole('button', { name: 'Crear Nueva Sala' }));
}

async function pickPeer(page: Page, dialog: ReturnType<Page['getByRole']>, label: string, peer: string) {
  await dialog.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: peer, exact: true }).click();
}

describe('rooms', () => {
  test('create, join from a second user, see the guest arrive, remove the guest, delete the room', async () => {
    const { ana, eva } = harness().customers;
    const owner = await newPage(browser());
    const guest = await newPage(browser());
    const room = unique('Sala');

    // ana creates the room with her peer 'movil'.
    await logIn(owner.page, ana);
    await openRooms(owner.page);
    await owner.page.getByRole('button', { name: 'Crear Nueva Sala' }).click();
    let dialog = owner.page.getByRole('dialog', { name: 'Crear Nueva Sala' });
    await dialog.getByRole('button', { name: 'Crear' }).click();
    await visible(toastWith(owner.page, 'Por favor, ingrese un nombre para la sala'));
    await dialog.getByLabel('Nombre de la sala').fill(room);
    await pickPeer(owner.page, dialog, 'Peer inicial', 'movil');
    await dialog.getByRole('button', { name: 'Crear' }).click();
    await visible(toastWith(owner.page, 'Sala creada correctamente'));
    const ownedRow = owner.page.getByRole('row').filter({ hasText: room });
    await visible(ownedRow.getByText('Administrador'));
    await gone(ownedRow.getByText('Operación en curso'));
    await screenshot(owner.page, 'rooms-created');

    // The detail view: owner, the masked password and its reveal toggle.
    await ownedRow.getByRole('button', { name: 'Ver' }).click();
    await visible(owner.page.getByRole('button', { name: 'Volver a Salas' }));
    await visible(owner.page.getByText('Propietario: Ana'));
    const password = owner.page.getByTestId('room-password');
    expect(await password.textContent()).toBe('•'.repeat(10));
    await owner.page.getByRole('button', { name: 'Mostrar contraseña' }).click();
    await expect.poll(async () => (await password.textContent()) ?? '').not.toBe('•'.repeat(10));
    expect(((await password.textContent()) ?? '').trim()).toHaveLength(12);
    // The owner chooses a password; the server refuses a short one, in Spanish, beside the field.
    await owner.page.getByRole('button', { name: 'Elegir contraseña' }).click();
    const choose = owner.page.getByRole('dialog', { name: 'Elegir contraseña de la sala' });
    await choose.getByLabel('Nueva contraseña').fill('corta');
    await choose.getByRole('button', { name: 'Guardar' }).click();
    await visible(choose.getByText('La contraseña de la sala debe tener entre 8 y 64 caracteres.'));
    const secret = 'viernes de LAN';
    await choose.getByLabel('Nueva contraseña').fill(secret);
    await choose.getByRole('button', { name: 'Guardar' }).click();
    await gone(choose);
    await expect.poll(async () => ((await password.textContent()) ?? '').trim()).toBe(secret);
    await visible(owner.page.getByRole('button', { name: 'Copiar contraseña' }));
    await screenshot(owner.page, 'rooms-detail-owner');

    // eva joins from his own browser context, with the name and the password ana gave her.
    await logIn(guest.page, eva);
    await openRooms(guest.page);
    await guest.page.getByRole('button', { name: 'Unirse a una sala' }).click();
    dialog = guest.page.getByRole('dialog', { name: 'Unirse a una sala' });
    await dialog.getByLabel('Nombre de la sala').fill(room);
    await dialog.getByRole('button', { name: 'Unirse' }).click();
    await visible(toastWith(guest.page, 'Por favor, complete todos los campos'));
    await dialog.getByLabel('Contraseña de la sala').fill(secret);
    await pickPeer(guest.page, dialog, 'Peer', 'sobremesa');
    await dialog.getByRole('button', { name: 'Unirse' }).click();
    const guestRow = guest.page.getByRole('row').filter({ hasText: room });
    await visible(guestRow.getByText('Invitado'));
    await screenshot(guest.page, 'rooms-joined-guest');

    // ana's open detail view gets eva's peer by push, and she removes it.
    const guestPeer = owner.page.getByRole('row').filter({ hasText: 'sobremesa' });
    await visible(guestPeer.getByText('Eva'));
    await screenshot(owner.page, 'rooms-detail-with-guest');
    await guestPeer.getByRole('button', { name: 'Expulsar' }).click();
    await owner.page.getByRole('dialog', { name: 'Confirmar Acción' }).getByRole('button', { name: 'Confirmar' }).click();
    await gone(guestPeer);
    // eva's list loses the room by push, and she reads who took her peer out of which room.
    await gone(guestRow);
    await visible(toastWith(guest.page, `El administrador de la sala «${room}» sacó a su peer «sobremesa» de la sala.`));
    await screenshot(guest.page, 'rooms-guest-expelled');

    // ana deletes the room.
    await owner.page.getByRole('button', { name: 'Eliminar Sala' }).click();
    await owner.page.getByRole('dialog', { name: 'Confirmar Acción' }).getByRole('button', { name: 'Confirmar' }).click();
    await visible(toastWith(owner.page, `Sala «${room}» eliminada.`));
    await gone(owner.page.getByRole('row').filter({ hasText: room }));
    await screenshot(owner.page, 'rooms-deleted');
    await owner.context.close();
    await guest.context.close();
  });

  test('a customer without an alias is asked to configure it first', async () => {
    const { page, context } = await newPage(browser());
    await logIn(page, harness().customers.dani);
    await page.goto('/dashboard/partys');
    await visible(page.getByText('Antes de crear o unirse a una sala configure su alias.'));
    await page.getByRole('link', { name: 'Configurar alias' }).click();
    await page.waitForURL('**/dashboard/settings');
    await context.close();
  });
});
