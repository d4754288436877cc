// A Vite plugin: the build fails when a Mantine component in the bundle has a style sheet that no module imports.
// The web client imports Mantine's styles component by component (src/app/mantine-styles.ts) instead of the whole
// 295 kB styles.css; using a new component and forgetting its sheet would ship it unstyled, which no type check,
// unit test (jsdom, no CSS) or axe run notices. The sheets Mantine ships are named after the component's folder
// or module (styles/Checkbox.css for esm/components/Checkbox/, styles/InlineInput.css for .../InlineInput.mjs).
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';
import type { OutputBundle } from 'rolldown';

const require = createRequire(import.meta.url);

export function mantineStylesCheck(): Plugin {
  const stylesDir = join(dirname(require.resolve('@mantine/core/styles.css')), 'styles');
  const sheets = new Set(
    readdirSync(stylesDir)
      .filter((name) => name.endsWith('.css') && !name.endsWith('.layer.css'))
      .map((name) => name.slice(0, -'.css'.length)),
  );
  return {
    name: 'mantine-styles-check',
    apply: 'build',
    generateBundle(_options, bundle: OutputBundle) {
      const ids = [...this.getModuleIds()].map((id) => id.replaceAll('\\', '/'));
      // Code the bundle kept (Mantine's index loads every component's module; tree-shaking drops the unused).
      const shipped = Object.values(bundle).flatMap((output) =>
        output.type === 'chunk'
          ? Object.entries(output.modules)
              .filter(([, module]) => module.renderedLength > 0)
              .map(([id]) => id.replaceAll('\\', '/'))
          : [],
      );
      if (ids.some((id) => /@mantine\/core\/styles(\.layer)?\.css$/.test(id))) return; // the whole sheet
      const imported = new Set(ids.flatMap((id) => /@mantine\/core\/styles\/([\w-]+)\.css$/.exec(id)?.[1] ?? []));
      const needed = new Set<string>();
      for (const id of shipped) {
        const path = /@mantine\/core\/esm\/(.+)\.mjs$/.exec(id)?.[1];
        if (!path) continue;
        for (const part of path.split('/')) if (sheets.has(part)) needed.add(part);
      }
      const missing = [...needed].filter((name) => !imported.has(name)).sort();
      if (missing.length > 0) {
        this.error(
          `Mantine components without their styles: ${missing.map((n) => `@mantine/core/styles/${n}.css`).join(', ')}` +
            ' (import them in src/app/mantine-styles.ts, or beside the page that alone uses them)',
        );
      }
    },
  };
}
