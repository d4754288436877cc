// Vitest settings for the real-browser layer (npm run e2e). Separate from vite.config.ts, which runs the jsdom tests.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['**/*.e2e.ts'],
    environment: 'node',
    globalSetup: ['./global-setup.ts'],
    // One control plane for the whole run; scenarios that flip switches change it for everyone, so files run
    // one after another.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll's own default is 1 s, too short on a loaded CI machine (two cores, several layers at once); the
    // same as PATIENCE in browser.ts. A poll ends as soon as its value is right, so passing tests do not slow down.
    expect: { poll: { timeout: 10_000 } },
    // A browser test that failed once is a bug to look at, not noise to retry.
    retry: 0,
    // One worker for all files, modules loaded once: saves seconds per file (each file launches its own browser).
    pool: 'threads',
    isolate: false,
  },
});
