/// <reference types="vitest/config" />
// Vite build and dev-server settings for the customer web client.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { mantineStylesCheck } from './scripts/mantine-styles-check';

const controlPlane = 'http://127.0.0.1:8000';

/**
 * Few, larger chunks (docs/webui.md, "Chunks"): on a Cuban mobile link every request costs a round trip of about
 * 300 ms and a kilobyte or two of headers, and left to itself the build made some sixty chunks, most of them a
 * Mantine component or hook of a few hundred bytes, so logging in and opening Peers took 61 requests. The
 * libraries every page uses go in one `vendor` chunk, the code every signed-in page shares in one `app` chunk;
 * pages stay lazy (one chunk each), and the charts and the QR code stay in their own, loaded only when shown.
 */
const LAZY_LIBRARIES = /node_modules[\\/](recharts|@mantine[\\/]charts|d3-|victory-vendor|@reduxjs|redux|react-redux|immer|reselect|decimal\.js|es-toolkit|eventemitter3|internmap|tiny-invariant|use-sync-external-store|qrcode|dijkstrajs|pngjs)/;
// Used by manager pages alone: kept out of what every customer downloads.
const MANAGER_ONLY = /node_modules[\\/](react-number-format|@mantine[\\/]core[\\/]esm[\\/]components[\\/](NumberInput|Pagination|Drawer|CopyButton|Textarea)[\\/])/;
// Mantine's floating and dialog components (and floating-ui under them) stay out of `vendor`: the landing and the
// login page use none, and with them `vendor` took the landing's JavaScript over its 200 KB gzip (docs/webui.md,
// "Size"). Those of the dashboard's first screens go in `dashboard` (below); the rest, in chunks of their own.
const DASHBOARD_WIDGETS =
  /node_modules[\\/](@floating-ui[\\/]|tabbable[\\/]|@mantine[\\/]core[\\/]esm[\\/]components[\\/](Popover|Tooltip|Menu|Combobox|Select|Modal|ModalBase|Table|SegmentedControl|Tabs|Stepper|Accordion|FloatingIndicator|ScrollArea|CopyButton)[\\/])/;

/**
 * What a customer waits on after logging in, in two chunks (docs/webui.md, "Chunks"): `floating` (Menu, Popover,
 * Tooltip and floating-ui under them) and `dashboard` (the dashboard's layout, Home, Peers and the other widgets
 * they use: dialogs, table, segmented control, copy buttons). Split, they were nine requests at 300 ms and a
 * kilobyte of headers each; the login page loads neither. The menus stay out of `dashboard`: with them in it, a
 * manager's row menu closed under the pointer (layout.e2e.ts, 'manager dialogs'; cause not found).
 */
const FLOATING =
  /node_modules[\\/](@floating-ui[\\/]|tabbable[\\/]|@mantine[\\/]core[\\/]esm[\\/]components[\\/](Popover|Tooltip|Menu)[\\/])/;
const DASHBOARD =
  /([\\/]src[\\/](app[\\/]dashboard[\\/]|features[\\/](home|peers)[\\/]|components[\\/]ConfirmDialog)|node_modules[\\/]@mantine[\\/]core[\\/]esm[\\/]components[\\/](Modal|ModalBase|ScrollArea|Table|SegmentedControl|FloatingIndicator|CopyButton)[\\/])/;

// Shared by signed-in pages: the API client, components, the live socket, and the small helpers two pages share.
const SHARED_CODE =
  /[\\/]src[\\/](lib[\\/]|components[\\/]|features[\\/]realtime[\\/]|app[\\/]dashboard[\\/]logout|features[\\/]peers[\\/](peer-format|expiry))/;
// Peer helpers other pages (rooms, the manager's) use too: in `app`, so that those pages need not load `dashboard`.
const PEER_HELPERS = /[\\/]src[\\/]features[\\/]peers[\\/](peer-format|expiry)/;
const LAZY_COMPONENTS = /[\\/]src[\\/]components[\\/]UsageBars\.tsx$/;
// The login, registration and password pages share their card and the captcha: one chunk for all of them.
const AUTH_PAGES = /[\\/]src[\\/]features[\\/]auth[\\/]/;

export default defineConfig({
  plugins: [react(), mantineStylesCheck()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The size script reads the manifest to find which chunks the landing route loads.
    manifest: true,
    // The vendor chunk is larger than Vite's 500 kB warning on purpose: one request instead of forty (above).
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            {
              name: 'vendor',
              // Mantine's style sheets stay with the module importing them (src/app/mantine-styles.ts: the
              // entry's; Help's and the manager's own few in their chunks' sheets).
              test: (id) =>
                id.includes('node_modules') &&
                !id.endsWith('.css') &&
                !LAZY_LIBRARIES.test(id) &&
                !MANAGER_ONLY.test(id) &&
                !DASHBOARD_WIDGETS.test(id),
              priority: 2,
            },
            {
              name: 'dashboard',
              test: (id) => DASHBOARD.test(id) && !PEER_HELPERS.test(id),
              // Last: a group takes the modules its modules import that no group before it took (React, the API
              // client...); first, it swallowed `vendor` and `app` whole.
              priority: 0,
            },
            {
              name: 'app',
              test: (id) => SHARED_CODE.test(id) && !DASHBOARD.test(id) && !LAZY_COMPONENTS.test(id),
              priority: 1,
            },
            { name: 'auth', test: AUTH_PAGES, priority: 1 },
            { name: 'floating', test: FLOATING, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: controlPlane, changeOrigin: true },
      // The socket checks Origin (docs/deployment.md); the dev server's own port is not the control plane's.
      '/ws': { target: controlPlane, ws: true, changeOrigin: true, headers: { origin: controlPlane } },
    },
  },
  test: {
    globals: true,
    environment: 'jsdom',
    setupFiles: ['./src/testing/setup.ts'],
    css: false,
    restoreMocks: true,
    mockReset: true,
    // `make test` runs this beside the API and browser layers on two cores: a Mantine render can take over the
    // default 5 s there, and a test of many steps over 20 s at a load average of 20. An upper bound for a hung
    // test, not a figure; waits inside tests keep their own, shorter limits (src/testing/setup.ts).
    testTimeout: 60_000,
  },
});
