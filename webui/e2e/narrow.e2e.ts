/** A phone-sized screen (under 768 px): peers as cards instead of the table, the collapsible menu. */
import type { Locator } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { harness } from './harness';
import { gone, logIn, NARROW, newPage, screenshot, useBrowser, visible } from './browser';

const browser = useBrowser();

/** The collapsed navbar slides out of the screen (it stays in the DOM): on screen means inside the viewport. */
async function onScreen(locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  return box !== null && box.x + box.width > 0 && box.x < NARROW.width;
}

describe('a narrow screen', () => {
  test('shows peer cards and a burger menu that opens the navigation', async () => {
    const { ana } = harness().customers;
    const { page, context } = await newPage(browser(), { viewport: NARROW });
    await page.goto('/');
    await screenshot(page, 'narrow-landing');
    await logIn(page, ana);
    const nav = page.getByRole('navigation', { name: 'Navegación' });
    await expect.poll(() => onScreen(nav.getByRole('link', { name: 'Peers' }))).toBe(false);
    await screenshot(page, 'narrow-home');
    await page.getByRole('button', { name: 'Abrir menú' }).click();
    await expect.poll(() => onScreen(nav.getByRole('link', { name: 'Peers' }))).toBe(true);
    await screenshot(page, 'narrow-menu-open');
    await nav.getByRole('link', { name: 'Peers' }).click();
    await page.waitForURL('**/dashboard/peers');
    // The menu closes after choosing, and the peers show as cards: no table.
    await expect.poll(() => onScreen(nav.getByRole('link', { name: 'Peers' }))).toBe(false);
    for (const name of ana.peers) await visible(page.getByText(name, { exact: true }).first());
    await gone(page.getByRole('table'));
    await visible(page.getByRole('button', { name: 'Descargar configuración' }).first());
    await screenshot(page, 'narrow-peers-cards');
    await context.close();
  });
});
