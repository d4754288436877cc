/// <reference types="vitest/config" />
// Vite build and dev-server settings for the customer web client.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const controlPlane = 'http://127.0.0.1:8000';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The size script reads the manifest to find which chunks the landing route loads.
    manifest: true,
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
