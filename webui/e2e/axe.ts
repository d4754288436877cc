/**
 * axe-core, run in the page as shown now (a11y.e2e.ts, peer-states.e2e.ts): evaluated through the DevTools protocol,
 * which the page's Content-Security-Policy does not govern (a script tag would be refused).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** The serious and critical WCAG 2.2 A/AA violations of the page as shown now, one readable line each. */
export async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
      resultTypes: ['violations'],
    });
    return result.violations;
  });
  return found
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) => `${violation.impact} ${violation.id} (${violation.help}) at ${JSON.stringify(node.target)}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`,
      ),
    );
}


/**
 * The WCAG contrast ratio of an element's text on the first opaque background behind it, measured as the browser
 * paints it. axe leaves a text it cannot place on one background (a toast over it, a translucent layer) as
 * "incomplete", which is no violation; a banner whose contrast matters is measured with this as well.
 */
export function textContrast(locator: Locator): Promise<number> {
  return locator.evaluate((el) => {
    const rgba = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const [lr, lg, lb] = [r, g, b].map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
      return 0.2126 * lr + 0.7152 * lg + 0.0722 * lb;
    };
    let background = [255, 255, 255];
    for (let box: Element | null = el; box; box = box.parentElement) {
      const color = rgba(getComputedStyle(box).backgroundColor);
      if (color.length >= 3 && (color.length === 3 || color[3] === 1)) {
        background = color;
        break;
      }
    }
    const [light, dark] = [luminance(rgba(getComputedStyle(el).color)), luminance(background)].sort((x, y) => y - x) as [number, number];
    return (light + 0.05) / (dark + 0.05);
  });
}
