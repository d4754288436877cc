/**
 * The browser side of the layer: Debian's Chromium through playwright-core, one browser per test file, and the
 * helpers every scenario uses (log in, screenshots, the admin API, the mail outbox, the captcha stand-in).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type Account, harness } from './harness';

export const CHROMIUM = process.env.VPN_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
/** How long a scenario waits for something a user would see (pushes included). */
export const PATIENCE = 10_000;

/** Waits until the element is shown (playwright-core has no `expect`; this is its auto-waiting). */
export async function visible(locator: Locator): Promise<void> {
  await locator.waitFor({ state: 'visible', timeout: PATIENCE });
}

/** Waits until the element is gone or hidden. */
export async function gone(locator: Locator): Promise<void> {
  await locator.waitFor({ state: 'hidden', timeout: PATIENCE });
}

/** Waits for the page title (docs/contract.md#page-titles: '<title> - <product name>'). */
export async function title(page: Page, expected: string): Promise<void> {
  await expect.poll(() => page.title(), { timeout: PATIENCE }).toBe(expected);
}

/** Waits until the element's text content equals (or matches) the expected text. */
export async function text(locator: Locator, expected: string | RegExp): Promise<void> {
  const poll = expect.poll(async () => ((await locator.textContent()) ?? '').trim(), { timeout: PATIENCE });
  await (typeof expected === 'string' ? poll.toBe(expected) : poll.toMatch(expected));
}

/** Sizes used by the scenarios: a laptop, and a phone (under the contract's 768 px breakpoint). */
export const WIDE = { width: 1280, height: 900 };
export const NARROW = { width: 390, height: 844 };

/**
 * Launches Chromium for the tests of one file (beforeAll) and closes it afterwards. Returns a getter because the
 * browser exists only once the hook has run.
 */
export function useBrowser(): () => Browser {
  let browser: Browser | null = null;
  // An uncaught exception or a Content-Security-Policy violation in any page of a test fails that test, whatever
  // the page showed: the layer runs with the real security headers, so a refused script, style, frame or socket
  // here is one a customer's browser would refuse too.
  afterEach(() => {
    const seen = uncaught.splice(0);
    const refused = cspViolations.splice(0);
    expect(seen, 'uncaught exceptions in the page').toEqual([]);
    expect(refused, `Content-Security-Policy violations:\n${refused.join('\n')}\n`).toEqual([]);
  });
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-default-apps',
        '--no-first-run',
        '--disable-dev-shm-usage',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not launched yet');
    return browser;
  };
}

const uncaught: string[] = [];
const cspViolations: string[] = [];

/**
 * Runs in every page and frame before its own scripts: each `securitypolicyviolation` event (the browser fires one
 * per refused load, inline script or style, eval, frame or connection) is handed to the test through a binding.
 */
const REPORT_CSP_VIOLATIONS = `(() => {
  document.addEventListener('securitypolicyviolation', (event) => {
    const report = window.__reportCspViolation;
    if (typeof report !== 'function') return;
    report([event.violatedDirective, event.effectiveDirective, event.blockedURI || '(inline)',
      event.sourceFile ? event.sourceFile + ':' + event.lineNumber : '', event.sample].join(' | '));
  }, true);
})();`;

/** Chromium's console line for what the policy blocked ("Refused to load the script ...", "Refused to connect ..."). */
const REFUSED = /^Refused to |Content Security Policy/;

/** Reports every CSP violation of the context's pages into `cspViolations` (event and console, both kept). */
async function watchCsp(context: BrowserContext): Promise<void> {
  await context.exposeBinding('__reportCspViolation', ({ frame }, detail: string) => {
    cspViolations.push(`${frame.url()}: ${detail}`);
  });
  await context.addInitScript({ content: REPORT_CSP_VIOLATIONS });
  context.on('console', (message) => {
    if (REFUSED.test(message.text())) cspViolations.push(`${message.page()?.url() ?? '?'}: ${message.text()}`);
  });
}

/**
 * The captcha provider's script, served in place of https://js.hcaptcha.com/1/api.js: the explicit-render API the
 * web client uses (render, reset, the onload callback named in the query) with a checkbox that hands over the token
 * the fake siteverify (tests/fakes/captcha.py) accepts.
 */
function captchaStandIn(token: string): string {
  return `(() => {
  const onload = new URL(document.currentScript.src).searchParams.get('onload');
  const widgets = [];
  window.hcaptcha = {
    render(container, options) {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.addEventListener('change', () => box.checked ? options.callback(${JSON.stringify(token)}) : options['expired-callback']());
      label.append(box, ' No soy un robot (captcha de prueba)');
      container.append(label);
      widgets.push(box);
      return widgets.length - 1;
    },
    reset(id) { const box = widgets[id ?? 0]; if (box) box.checked = false; },
  };
  if (onload) window[onload]();
})();`;
}

/**
 * A fresh context (own storage, own cookies: a second context is a second user). Requests to anything but the control
 * plane and the fake gateways are refused, except the captcha provider's script, which gets the local stand-in.
 */
export async function newPage(
  browser: Browser,
  options: { viewport?: { width: number; height: number }; baseURL?: string; timezoneId?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const { captcha, gateways } = harness();
  // Another name of the same control plane (localhost, the socket proxy) when a scenario opens it so.
  const url = options.baseURL ?? harness().url;
  const allowed = [url, gateways.qvapay, gateways.remesita];
  const context = await browser.newContext({
    baseURL: url,
    viewport: options.viewport ?? WIDE,
    locale: 'es-ES',
    timezoneId: options.timezoneId,
    acceptDownloads: true,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
  await context.route(
    (target) => !allowed.some((origin) => target.href.startsWith(origin)) && !['data:', 'blob:'].includes(target.protocol),
    (route) => {
      if (route.request().url().startsWith('https://js.hcaptcha.com/')) {
        return route.fulfill({ contentType: 'application/javascript', body: captchaStandIn(captcha.token) });
      }
      return route.abort('blockedbyclient');
    },
  );
  await watchCsp(context);
  context.setDefaultTimeout(PATIENCE);
  context.on('page', (opened) => opened.on('pageerror', (error) => uncaught.push(`${opened.url()}: ${error.message}`)));
  const page = await context.newPage();
  return { context, page };
}

/** Keeps a full-page screenshot as a test artifact (webui/e2e/artifacts/<name>.png, gitignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Let toasts and transitions settle so the picture shows what the user sees.
  await page.waitForTimeout(150);
  // A full page of a long list is a large picture: on a host busy with the other test layers Chromium took more than
  // PATIENCE to paint one (the manager's peers at 1024 px), which says nothing about the page.
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, timeout: PATIENCE * 3 });
}

/** Logs in through the login form, as a user would, and waits for the dashboard home. */
export async function logIn(page: Page, account: Account, options: { remember?: boolean } = {}): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Usuario').fill(account.username);
  await page.getByLabel('Contraseña', { exact: true }).fill(account.password);
  if (options.remember) await page.getByLabel('Recordarme').check();
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL('**/dashboard/home');
}

/** Logs a staff account in through the manager's login form and waits for the manager's overview. */
export async function logInStaff(page: Page, account: Account): Promise<void> {
  await page.goto('/manager/login');
  await page.getByLabel('Usuario').fill(account.username);
  await page.getByLabel('Contraseña', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL('**/manager/dashboard');
}

/** Logs out through the user menu and waits for the login page. */
export async function logOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Menú de usuario' }).click();
  await page.getByRole('menuitem', { name: 'Cerrar sesión' }).click();
  await page.waitForURL('**/login');
}

/** A Mantine toast (notification) with this text. */
export function toastWith(page: Page, text: string | RegExp) {
  return page.locator('.mantine-Notification-root').filter({ hasText: text });
}

/**
 * Closes the toasts on screen, as a user who has read them would, and waits until they are gone. They show
 * top-right (the contract's place), over the table's action column: a click there while one is up lands on it.
 */
export async function dismissToasts(page: Page): Promise<void> {
  const toasts = page.locator('.mantine-Notification-root');
  for (const close of await toasts.locator('.mantine-Notification-closeButton').all()) {
    await close.click({ timeout: 2_000 }).catch(() => undefined); // it may have closed by itself meanwhile
  }
  await toasts.first().waitFor({ state: 'detached', timeout: PATIENCE * 2 });
}

const tokens = new Map<string, string>();

async function accessToken(account: Account, asAdmin: boolean, fresh: boolean): Promise<string> {
  const key = `${asAdmin ? 'admin' : 'client'}:${account.username}`;
  const known = tokens.get(key);
  if (known && !fresh) return known;
  const login = await fetch(`${harness().url}${asAdmin ? '/api/admin/login' : '/api/client/login'}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: account.username, password: account.password }),
  });
  if (!login.ok) throw new Error(`login of ${account.username} failed: ${login.status} ${await login.text()}`);
  const { access } = (await login.json()) as { access: string };
  tokens.set(key, access);
  return access;
}

/**
 * A call to the real API outside the browser (the harness's admin account by default). The access token is kept
 * between calls (a login costs an argon2 hash) and renewed once when refused.
 */
export async function api(
  method: string,
  path: string,
  options: { body?: unknown; account?: Account; admin?: boolean } = {},
): Promise<unknown> {
  const asAdmin = options.admin ?? !options.account;
  const account = options.account ?? harness().admin;
  let answer: Response | null = null;
  for (const fresh of [false, true]) {
    const access = await accessToken(account, asAdmin, fresh);
    answer = await fetch(`${harness().url}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${access}` },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    if (answer.status !== 401) break;
  }
  const text = await answer!.text();
  if (!answer!.ok) throw new Error(`${method} ${path}: ${answer!.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : null;
}

/** The id of the customer's peer by its name (the room calls name peers by id). */
export async function peerId(account: Account, name: string): Promise<string> {
  const peers = (await api('GET', '/api/client/accounts/peers', { account })) as { id: string; name: string }[];
  return peers.find((peer) => peer.name === name)!.id;
}

/** The room the customer owns by its name, as the rooms list shows it (each test declares the fields it reads). */
export async function ownedRoom<Room extends { name: string }>(
  account: Account,
  name: string,
): Promise<Room | undefined> {
  const lists = (await api('GET', '/api/client/network/partys', { account })) as { owned_partys: Room[] };
  return lists.owned_partys.find((room) => room.name === name);
}

export interface Switches {
  maintenance?: boolean;
  allow_registration?: boolean;
  allow_password_recovery?: boolean;
  show_landing?: boolean;
  allow_email?: boolean;
  allow_partys?: boolean;
  allow_payments_qvapay?: boolean;
  allow_payments_remesita?: boolean;
}

/** Flips runtime switches through PATCH /api/admin/switches; returns the previous values to restore later. */
export async function setSwitches(changes: Switches): Promise<Switches> {
  const before = (await api('GET', '/api/admin/switches')) as Required<Switches>;
  await api('PATCH', '/api/admin/switches', { body: changes });
  const previous: Switches = {};
  for (const key of Object.keys(changes) as (keyof Switches)[]) previous[key] = before[key];
  return previous;
}

/** Sets switches for the tests of one file (beforeAll) and puts the previous values back afterwards. */
export function useSwitches(changes: Switches): void {
  let restore: Switches = {};
  beforeAll(async () => {
    restore = await setSwitches(changes);
  });
  afterAll(async () => {
    await setSwitches(restore);
  });
}

/** The newest mail sent to `to` (raw RFC 822 text) containing `containing`, waiting up to 60 s for it. */
export async function latestMailTo(to: string, containing = ''): Promise<string> {
  const { outbox } = harness();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    let names: string[];
    try {
      names = readdirSync(outbox).sort().reverse();
    } catch {
      names = [];
    }
    for (const name of names) {
      const text = readFileSync(join(outbox, name), 'utf8');
      const addressed = new RegExp(`^To: ${to.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'mi').test(text);
      if (addressed && text.replace(/=\r?\n/g, '').includes(containing)) return text;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no mail to ${to} in ${outbox}`);
}

/** The first link to the control plane's own address in a mail (quoted-printable soft breaks undone). */
export function linkIn(mail: string): string {
  const { url } = harness();
  const body = mail.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const match = body.match(new RegExp(`${url.replace(/[.]/g, '\\.')}/[^\\s"<>]+`));
  if (!match) throw new Error(`no link in mail:\n${mail}`);
  return match[0];
}

/** A unique suffix for names created by a test (users, rooms), so reruns against one harness never collide. */
export function unique(prefix: string): string {
  return `${prefix}${Date.now().toString(36).slice(-5)}`;
}
