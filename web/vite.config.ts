/**
 * Builds the dashboard (web/) into dist/web at the repository root, where `mailvet serve` serves it
 * (src/http/plugins/dashboard.ts). `vite --config web/vite.config.ts` runs it in development, with
 * the API proxied to a running `mailvet serve` (MAILVET_API, default http://localhost:8080).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const api = process.env.MAILVET_API ?? 'http://localhost:8080';
// The API refuses a session's unsafe requests from another origin: the proxy speaks as the API's own.
const proxied = { target: api, changeOrigin: true, headers: { origin: api } };

/**
 * Writes `.br` and `.gz` beside each text file of the build, compressed once at the highest levels,
 * for the server to send as they are (`preCompressed` in src/http/plugins/dashboard.ts) instead of
 * the raw 300 kB of script, or compressing on every request.
 */
function precompressed(): Plugin {
  return {
    name: 'mailvet:precompressed',
    apply: 'build',
    // From the files as written: Vite rewrites chunks until the end of generateBundle.
    async writeBundle(options, bundle) {
      const dir = options.dir ?? '.';
      for (const fileName of Object.keys(bundle)) {
        if (!/\.(?:js|css|html|svg|json)$/.test(fileName)) continue;
        const bytes = await readFile(join(dir, fileName));
        // Below a packet or so, compression saves nothing worth a second file.
        if (bytes.length < 1024) continue;
        await writeFile(join(dir, `${fileName}.gz`), gzipSync(bytes, { level: 9 }));
        const quality = { [constants.BROTLI_PARAM_QUALITY]: 11 };
        await writeFile(join(dir, `${fileName}.br`), brotliCompressSync(bytes, { params: quality }));
      }
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react(), precompressed()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill is for browsers older than the ones the dashboard supports.
    modulePreload: { polyfill: false },
  },
  server: { proxy: { '/api': proxied, '/docs': proxied } },
});
