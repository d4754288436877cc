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
      '/ws': { target: controlPlane, ws: true, changeOrigin: true },
    },
  },
  test: {
    globals: true,
    environment: 'jsdom',
    setupFiles: ['./src/testing/setup.ts'],
    css: false,
    restoreMocks: true,
    mockReset: true,
  },
});
