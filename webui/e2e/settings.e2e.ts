/** Account settings: alias, email, password (carla's account; her password changes). */
import { describe, test } from 'vitest';
import { harness } from './harness';
import { logIn, logOut, newPage, screenshot, toastWith, useBrowser, visible } from './browser';

const browser = useBrowser();

describe('settings', () => {
  test('sets the alias, sets and removes the email, changes the password and logs in with the new one', async () => {
    const { carla } = harness().customers;
    const { page, context } = await newPage(browser());
    await logIn(page, carla);
    await page.getByRole('button', { name: 'Menú de usuario' }).click();
    await page.getByRole('menuitem', { name: 'Configuración de cuenta' }).click();
    await page.waitForURL('**/dashboard/settings');
    await visible(page.getByRole('heading', { name: 'Configuración de Cuenta' }));

    await page.getByLabel('Alias', { exact: true }).fill('Carlita');
    await page.getByRole('button', { name: 'Configurar' }).click();
    await visible(toastWith(page, 'Alias configurado correctamente.'));
    await page.getByLabel('Alias', { exact: true }).fill('Carla');
    await page.getByRole('button', { name: 'Modificar' }).click();
    await visible(toastWith(page, 'Alias modificado correctamente.'));

    await page.getByLabel('Email', { exact: true }).fill('carla@correo.test');
    await page.getByRole('button', { name: 'Guardar email' }).click();
    await visible(toastWith(page, 'Email modificado correctamente.'));
    await page.getByRole('button', { name: 'Guardar email' }).click();
    await visible(page.getByText('El nuevo email no puede ser igual q el anterior'));
    await page.getByRole('button', { name: 'Eliminar email' }).click();
    await visible(toastWith(page, 'Email eliminado correctamente'));

    const newPassword = 'carla-clave-nueva-2';
    await page.getByLabel('Contraseña actual').fill(carla.password);
    await page.getByLabel('Nueva contraseña', { exact: true }).fill(carla.password);
    await page.getByLabel('Confirmar nueva contraseña').fill(carla.password);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
    await visible(page.getByText('La nueva contraseña no puede ser igual a la anterior.'));
    await page.getByLabel('Nueva contraseña', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirmar nueva contraseña').fill(newPassword);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
    await visible(toastWith(page, 'Contraseña cambiada correctamente.'));
    await screenshot(page, 'settings');

    await logOut(page);
    await logIn(page, { username: carla.username, password: newPassword });
    // Put the seeded password back so a rerun against the same harness finds it.
    await page.goto('/dashboard/settings');
    await page.getByLabel('Contraseña actual').fill(newPassword);
    await page.getByLabel('Nueva contraseña', { exact: true }).fill(carla.password);
    await page.getByLabel('Confirmar nueva contraseña').fill(carla.password);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
    await visible(toastWith(page, 'Contraseña cambiada correctamente.'));
    await context.close();
  });
});
