/**
 * What "fits the screen" means for the layout checks (layout.e2e.ts), measured in the page as the user's browser
 * lays it out: nothing to scroll sideways, no control out of sight, no text cut off or spilling out of its box.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshot, visible } from './browser';

/** The widths the checks run at: small and common phones, a tablet, laptops and a desktop. */
export const WIDTHS = [360, 390, 768, 1024, 1280, 1366, 1440] as const;

/** A height that changes nothing horizontally; full-page measures do not depend on it. */
export const HEIGHT = 900;

/**
 * Runs in the page; returns one line per problem (empty when the screen fits):
 * - the document scrolls sideways (its scroll width is wider than the viewport);
 * - an interactive element (link, button, field, switch, menu trigger) lies, even partly, outside the viewport
 *   horizontally, or outside the visible part of a box that clips or scrolls it (a table's scroll container): the
 *   user cannot see it without scrolling sideways, if at all;
 * - an element's content is wider than its box (scrollWidth > clientWidth + 1): text run past a card's edge or hidden
 *   under a cell's clipping. Text cut on purpose with an ellipsis and a title carrying the whole of it is allowed;
 * - a button's or badge's label is cut (its words wider than the box that clips them), ellipsis or not.
 * Elements the user cannot see (display none, visibility hidden, the phone's closed navigation moved off screen) are
 * skipped. A box that scrolls sideways is no excuse (a table in Mantine's scroll area included): a row's secondary
 * columns hidden to the right are content out of sight, as its actions would be. Only drawings (svg, the charts)
 * may be wider than their box.
 */
function measure(): string[] {
  const problems: string[] = [];
  const viewport = document.documentElement.clientWidth;
  const describe = (el: Element): string => {
    const label =
      el.getAttribute('aria-label') ?? el.getAttribute('title') ?? (el.textContent ?? '').trim().replace(/\s+/g, ' ');
    const id = el.getAttribute('data-testid');
    return `<${el.tagName.toLowerCase()}${id ? ` data-testid=${id}` : ''}> "${label.slice(0, 60)}"`;
  };
  const shown = (el: Element): boolean => {
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    if (el.closest('[aria-hidden="true"], [inert]')) return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  };
  // The phone's navigation, when closed, is translated out of the screen (Mantine keeps it in the DOM).
  const offCanvas = (el: Element): boolean => {
    const nav = el.closest('.mantine-AppShell-navbar');
    if (!nav) return false;
    const rect = nav.getBoundingClientRect();
    return rect.right <= 0 || rect.left >= viewport;
  };

  const scrollWidth = document.documentElement.scrollWidth;
  if (scrollWidth > viewport) problems.push(`the page scrolls sideways: ${scrollWidth} px wide in ${viewport} px`);

  const interactive = document.querySelectorAll(
    'a[href], button, input:not([type="hidden"]), select, textarea, [role="button"], [role="switch"], [role="checkbox"], [role="tab"], [aria-haspopup]',
  );
  for (const el of interactive) {
    if (!shown(el) || offCanvas(el)) continue;
    const rect = el.getBoundingClientRect();
    if (rect.left < -0.5 || rect.right > viewport + 0.5) {
      problems.push(`${describe(el)} is outside the screen (x ${Math.round(rect.left)}–${Math.round(rect.right)} of ${viewport})`);
      continue;
    }
    // Inside a box that clips (a scroll container): visible only if within the box's own visible part.
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
      const overflowX = getComputedStyle(box).overflowX;
      if (overflowX === 'visible') continue;
      const clip = box.getBoundingClientRect();
      if (rect.left < clip.left - 0.5 || rect.right > clip.right + 0.5) {
        problems.push(`${describe(el)} is hidden sideways in a box that ${overflowX === 'hidden' || overflowX === 'clip' ? 'clips' : 'scrolls'} it (x ${Math.round(rect.left)}–${Math.round(rect.right)}, box ${Math.round(clip.left)}–${Math.round(clip.right)})`);
        break;
      }
    }
  }

  const overflowing: HTMLElement[] = [];
  for (const el of document.querySelectorAll('body *')) {
    if (!(el instanceof HTMLElement) || el.clientWidth === 0 || !shown(el) || offCanvas(el)) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const style = getComputedStyle(el);
    if (style.textOverflow === 'ellipsis' && el.title) continue; // cut on purpose, the whole text in its title
    if (el.closest('svg, .recharts-wrapper')) continue;
    overflowing.push(el);
  }
  // A box that would scroll sideways, or text spilling out of a box that does not: both lose content. Only the
  // innermost is named: its ancestors overflow because of it.
  for (const el of overflowing) {
    if (overflowing.some((other) => other !== el && el.contains(other))) continue;
    problems.push(`${describe(el)} overflows its box: ${el.scrollWidth} px of content in ${el.clientWidth} px (overflow-x ${getComputedStyle(el).overflowX})`);
  }

  // A button's or badge's words cut short ('Acciones' shown as 'Accio', 'Recomendado' squeezed to a dot): the box
  // that clips them (the label span Mantine gives overflow hidden, or the control itself) is narrower than the words.
  // The check above lets an ellipsis with a title pass and skips boxes squeezed to nothing; neither is fine on a
  // control or a badge, whose few words are all there is to read.
  const labelled = document.querySelectorAll(
    'button, [role="button"], [role="tab"], .mantine-Button-root, .mantine-Badge-root',
  );
  for (const control of labelled) {
    if (!shown(control) || offCanvas(control)) continue;
    for (const part of [control, ...control.querySelectorAll('*')]) {
      if (!(part instanceof HTMLElement) || !(part.textContent ?? '').trim()) continue;
      const style = getComputedStyle(part);
      if (style.overflowX === 'visible' && style.textOverflow !== 'ellipsis') continue;
      if (style.display === 'none' || style.display === 'contents') continue;
      if (part.scrollWidth > part.clientWidth + 1) {
        problems.push(`${describe(control)}: its label is cut, ${part.scrollWidth} px of words in ${part.clientWidth} px`);
        break;
      }
    }
  }
  return [...new Set(problems)];
}

/** The problems of the screen as shown now (see `measure`). */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(measure);
}

/** Lets the page lay itself out again after a resize (media queries switch components, the navbar slides). */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.waitForTimeout(300);
}

/**
 * Opens a screen with `open` once, then measures it at every width (or at `widths`: a screen whose content lives
 * only seconds is measured at fewer); one failure lists every width's problems, so a run shows the whole picture.
 * Screenshots in e2e/artifacts/layout-<name>-<width>.png.
 */
export async function fitsEveryWidth(
  page: Page,
  name: string,
  open: () => Promise<void>,
  widths: readonly number[] = WIDTHS,
): Promise<void> {
  await page.setViewportSize({ width: Math.max(...widths), height: HEIGHT });
  await open();
  const failures: string[] = [];
  for (const width of widths) {
    await page.setViewportSize({ width, height: HEIGHT });
    await settle(page);
    await screenshot(page, `layout-${name}-${width}`);
    const problems = await layoutProblems(page);
    if (problems.length > 0) failures.push(`${name} at ${width} px:\n  ${problems.join('\n  ')}`);
  }
  expect(failures, failures.join('\n')).toEqual([]);
}

/** Goes to a dashboard page and waits for its heading and its data. */
export async function openPage(page: Page, path: string, heading: string): Promise<void> {
  await page.goto(path);
  await visible(page.getByRole('heading', { name: heading, exact: true }));
  await loaded(page);
}

const LOADING = 'Cargando información...';

/** Every section of the screen has its data (a page or a drawer may load several at once). */
export async function loaded(page: Page): Promise<void> {
  await page.waitForFunction((text) => !document.body.innerText.includes(text), LOADING, { timeout: 15_000 });
}
