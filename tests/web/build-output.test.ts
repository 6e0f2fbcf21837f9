/**
 * What `npm run build` leaves in dist/web for the server: every script and stylesheet the first
 * page loads has a brotli and a gzip copy beside it (web/vite.config.ts), holding the same bytes,
 * so the dashboard plugin can send them precompressed.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

const BUILT = fileURLToPath(new URL('../../dist/web/', import.meta.url));

test('the first page’s scripts and styles are built with brotli and gzip copies of the same bytes', async (t) => {
  if (!existsSync(join(BUILT, 'index.html'))) {
    if (process.env.CI === 'true') assert.fail(`no ${BUILT}index.html: under CI=true the build must exist`);
    return t.skip(`the dashboard is not built (no ${BUILT}index.html: run npm run build)`);
  }
  const index = await readFile(join(BUILT, 'index.html'), 'utf8');
  const files = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map(
    (match) => match[1]!,
  );
  assert.ok(
    files.some((file) => file.endsWith('.js')),
    'index.html loads a script',
  );
  for (const file of files) {
    const plain = await readFile(join(BUILT, file));
    if (plain.length < 1024) continue;
    assert.deepEqual(brotliDecompressSync(await readFile(join(BUILT, `${file}.br`))), plain, `${file}.br`);
    assert.deepEqual(gunzipSync(await readFile(join(BUILT, `${file}.gz`))), plain, `${file}.gz`);
  }
});
