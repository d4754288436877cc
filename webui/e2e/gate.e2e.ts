/** The guest gate against the real switches (flipped through PATCH /api/admin/switches, restored afterwards). */
import { afterEach, describe, test } from 'vitest';
import { harness } from './harness';
import { gone, logIn, newPage, screenshot, setSwitches, type Switches, title, useBrowser, visible } from './browser';

const browser = useBrowser();
let restore: Switches | null = null;

afterEach(async () => {
  if (restore) await setSwitches(restore);
  restore = null;
});

describe('the gate', () => {
  test('maintenance sends every page, the dashboard included, to /maintenance; off again, it lets go', async () => {
    const { page, context } = await newPage(browser());
    await logIn(page, harness().customers.ana);
    restore = await setSwitches({ maintenance: true });
    for (const path of ['/', '/plans', '/login', '/register', '/dashboard/home']) {
      await page.goto(path);
      await page.waitForURL('**/maintenance');
    }
    await title(page, 'Servicio en Mantenimiento - VPN Pruebas');
    await visible(page.getByRole('heading', { name: 'Servicio en Mantenimiento' }));
    await screenshot(page, 'gate-maintenance');
    await setSwitches(restore);
    restore = null;
    await page.goto('/maintenance');
    await page.waitForURL((url) => url.pathname === '/');
    await context.close();
  });

  test('a customer already in the dashboard is taken to /maintenance by the next 503', async () => {
    const { page, context } = await newPage(browser());
    await logIn(page, harness().customers.ana);
    // The home page's own calls must be answered first, or they would meet the 503 before the click does.
    await visible(page.getByRole('button', { name: 'Contactar Soporte' }));
    restore = await setSwitches({ maintenance: true });
    await page.getByRole('navigation', { name: 'Navegación' }).getByRole('link', { name: 'Peers' }).click();
    await page.waitForURL('**/maintenance');
    await context.close();
  });

  test('landing off: the landing and the plans go to /login, which has no way back to / but still to /register', async () => {
    const { page, context } = await newPage(browser());
    restore = await setSwitches({ show_landing: false });
    await page.goto('/');
    await page.waitForURL('**/login');
    await page.goto('/plans');
    await page.waitForURL('**/login');
    await gone(page.getByRole('link', { name: 'Volver al inicio' }));
    await screenshot(page, 'gate-landing-off');
    // Registration keeps its own switch (docs/webui.md): the login page's register link is not a dead end.
    await page.getByRole('link', { name: 'Crear una cuenta' }).click();
    await page.waitForURL('**/register');
    await visible(page.getByLabel('Confirmar contraseña'));
    await context.close();
  });

  test('registration off: /register goes to /login, which offers no register link', async () => {
    const { page, context } = await newPage(browser());
    restore = await setSwitches({ allow_registration: false });
    await page.goto('/register');
    await page.waitForURL('**/login');
    await gone(page.getByRole('link', { name: 'Crear una cuenta' }));
    await page.goto('/plans');
    await visible(page.getByRole('heading', { name: 'Planes', level: 1 }));
    await gone(page.getByRole('link', { name: /registr/i }));
    await screenshot(page, 'gate-registration-off');
    await context.close();
  });

  test('recovery off: /password-recovery goes to the landing', async () => {
    const { page, context } = await newPage(browser());
    restore = await setSwitches({ allow_password_recovery: false });
    await page.goto('/password-recovery');
    await page.waitForURL((url) => url.pathname === '/');
    await context.close();
  });
});
