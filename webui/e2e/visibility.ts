/**
 * The tab hidden or shown, as the browser reports it to the page. Headless Chromium never hides a page (there is
 * no window to minimise or cover: bringing another tab to the front leaves `document.visibilityState` 'visible'),
 * so the page's `visibilityState` and `hidden` are set and `visibilitychange` is fired, exactly what a real switch
 * of tabs gives the page's code. bench/web_data.mjs does the same.
 */
import type { Page } from 'playwright-core';

export async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((value) => {
    const state = value ? 'hidden' : 'visible';
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => value });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}
