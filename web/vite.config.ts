/**
 * Builds the dashboard (web/) into dist/web at the repository root, where `mailvet serve` serves it
 * (src/http/plugins/dashboard.ts). `vite --config web/vite.config.ts` runs it in development, with
 * the API proxied to a running `mailvet serve` (MAILVET_API, default http://localhost:8080).
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = process.env.MAILVET_API ?? 'http://localhost:8080';
// The API refuses a session's unsafe requests from another origin: the proxy speaks as the API's own.
const proxied = { target: api, changeOrigin: true, headers: { origin: api } };

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill is for browsers older than the ones the dashboard supports.
    modulePreload: { polyfill: false },
  },
  server: { proxy: { '/api': proxied, '/docs': proxied } },
});
