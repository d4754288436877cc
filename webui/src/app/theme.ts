/**
 * The Mantine theme of the web client, and the colours that make every page meet WCAG 2.2 AA contrast (4.5:1 for
 * text, docs/webui.md "Contrast"). Mantine's defaults fall short in the light scheme: dimmed text (gray 6, 3.3:1),
 * white on filled buttons and badges of shade 6 (indigo 4.3:1, green 2.4:1), and the text of light badges, alerts and
 * subtle buttons (shade 6 on its 10 % tint, green 2.2:1, yellow 1.8:1). Rather than fix pages one by one, the CSS
 * variables every component reads are replaced here with the first shade of the same colour that reaches 4.5:1.
 */
import {
  Badge,
  createTheme,
  type CSSVariablesResolver,
  darken,
  type MantineColorsTuple,
  type TableScrollContainerProps,
} from '@mantine/core';

/** WCAG's minimum contrast for normal text (AA). */
export const TEXT_CONTRAST = 4.5;

/** '#rrggbb' or 'rgb(a)(r, g, b, …)' as [r, g, b] in 0–255. */
function channels(color: string): [number, number, number] {
  if (color.startsWith('#')) {
    const hex = color.slice(1);
    return [0, 2, 4].map((at) => parseInt(hex.slice(at, at + 2), 16)) as [number, number, number];
  }
  const [r = 0, g = 0, b = 0] = (color.match(/[\d.]+/g) ?? []).map(Number);
  return [r, g, b];
}

function luminance(color: string): number {
  const [r, g, b] = channels(color).map((value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio between two opaque colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The first shade from 6 up that reads at 4.5:1 on `background`; else shade 9 darkened until it does. */
export function readableShade(shades: MantineColorsTuple, background: string): string {
  for (const shade of [shades[6], shades[7], shades[8], shades[9]]) {
    if (contrast(shade, background) >= TEXT_CONTRAST) return shade;
  }
  for (let amount = 0.1; amount < 1; amount += 0.1) {
    const darker = darken(shades[9], amount);
    if (contrast(darker, background) >= TEXT_CONTRAST) return darker;
  }
  return '#000000';
}

/**
 * Dimmed text: 5.2:1 on white and 4.9:1 on the gray 0 of striped and hovered rows (gray 6 gives 3.3:1; gray 7,
 * 8.2:1, would no longer read as secondary).
 */
export const DIMMED = '#666e76';

export const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  components: {
    // A badge is a word or two that must be read whole. Mantine clips its label with an ellipsis, which lets a table
    // or a row squeeze it to 'VISI…' or to nothing (its smallest width is then a few pixels); at its words' width it
    // pushes its neighbours to wrap instead. A badge meant to wrap sets whiteSpace normal and a min width of its own.
    Badge: Badge.extend({ styles: { root: { minWidth: 'max-content' } } }),
    // A table wider than the screen scrolls inside its container: the container takes the keyboard focus so it can
    // be scrolled without a mouse (WCAG 2.1.1; axe, scrollable-region-focusable).
    // By name, not `TableScrollContainer.extend`: importing the component put Table, its ScrollArea and floating-ui
    // in the first chunk the login page loads (docs/webui.md, "Chunks").
    TableScrollContainer: {
      defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } } satisfies Partial<TableScrollContainerProps>,
    },
    // A toast's close button is an icon alone: without a name a screen reader announces a bare "button" (axe,
    // button-name, found with the lobby's "Dirección … copiada" toast on screen). By name, as above.
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Cerrar notificación' } } },
  },
});

/**
 * The light scheme's colour variables, per palette colour: filled backgrounds that carry white text at 4.5:1, and
 * one text colour for light (tinted), subtle, outline and coloured text (`c="green"`) that reads at 4.5:1 on the
 * tint, hence on white too. The dark scheme is not used (defaultColorScheme is light) and keeps Mantine's values.
 */
export const cssVariablesResolver: CSSVariablesResolver = (resolved) => {
  const light: Record<string, string> = {
    '--mantine-color-dimmed': DIMMED,
  };
  for (const [name, shades] of Object.entries(resolved.colors)) {
    if (shades.length < 10) continue;
    const filled = readableShade(shades, '#ffffff');
    // On the 10 % tint of light badges and alerts, and on shade 1, the active navigation link's background.
    const text = readableShade(shades, shades[1]);
    Object.assign(light, {
      [`--mantine-color-${name}-filled`]: filled,
      [`--mantine-color-${name}-filled-hover`]: darken(filled, 0.1),
      [`--mantine-color-${name}-light-color`]: text,
      [`--mantine-color-${name}-outline`]: text,
      [`--mantine-color-${name}-text`]: text,
    });
  }
  const primary = resolved.colors[resolved.primaryColor]!;
  light['--mantine-color-anchor'] = readableShade(primary, '#f8f9fa');
  light['--mantine-color-error'] = readableShade(resolved.colors.red!, '#ffffff');
  return { variables: {}, light, dark: {} };
};
