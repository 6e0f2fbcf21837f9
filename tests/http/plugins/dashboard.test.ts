/**
 * The dashboard plugin on a bare Fastify instance, pointed at a temporary build: the
 * index at `/`, client routes answered with it, hashed assets cached for a year, the HTML's
 * security headers, the API's paths left to the app, and a clear 503 page when nothing is built.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { DASHBOARD_CSP, dashboardPlugin } from '../../../src/http/plugins/dashboard.ts';

const INDEX =
  '<!doctype html><title>Mailvet</title><script type="module" src="/assets/app-3f2a1b.js"></script>';
const ASSET = 'console.log("dashboard");';

let scratch: string;
let built: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mailvet-dashboard-'));
  built = join(scratch, 'web');
  await mkdir(join(built, 'assets'), { recursive: true });
  await writeFile(join(built, 'index.html'), INDEX);
  await writeFile(join(built, 'assets', 'app-3f2a1b.js'), ASSET);
  // As the build writes them (web/vite.config.ts): the same script, compressed beside it.
  await writeFile(join(built, 'assets', 'app-3f2a1b.js.br'), brotliCompressSync(ASSET));
  await writeFile(join(built, 'assets', 'app-3f2a1b.js.gz'), gzipSync(ASSET));
  await writeFile(join(built, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(scratch, 'secret.txt'), 'outside the build');
});
after(() => rm(scratch, { recursive: true, force: true }));

/** A bare app: its own JSON not-found handler and a probe route, as the API has. */
async function appWith(root: string, notFoundFirst = true): Promise<FastifyInstance> {
  const app = Fastify();
  const notFound = (app: FastifyInstance) =>
    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send({ code: 'not_found', path: request.url });
    });
  if (notFoundFirst) notFound(app);
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.register(dashboardPlugin, { root });
  if (!notFoundFirst) notFound(app);
  await app.ready();
  return app;
}

function assertHtmlHeaders(headers: Record<string, unknown>): void {
  assert.match(String(headers['content-type']), /^text\/html/);
  assert.equal(headers['cache-control'], 'no-cache');
  assert.equal(headers['content-security-policy'], DASHBOARD_CSP);
  assert.equal(headers['x-content-type-options'], 'nosniff');
  assert.equal(headers['referrer-policy'], 'same-origin');
}

describe('with a build', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await appWith(built);
  });
  after(() => app.close());

  test('/ answers index.html, revalidated on each load, with the CSP', async () => {
    const response = await app.inject({ method: 'GET', url: '/' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, INDEX);
    assertHtmlHeaders(response.headers);
    assert.equal((await app.inject({ method: 'GET', url: '/?from=mail' })).body, INDEX);
  });

  test('the policy allows no inline script and no framing', () => {
    const directives = new Map(
      DASHBOARD_CSP.split('; ').map((directive) => {
        const [name, ...values] = directive.split(' ');
        return [name, values];
      }),
    );
    assert.deepEqual(directives.get('default-src'), ["'self'"]);
    assert.deepEqual(directives.get('script-src'), ["'self'"]);
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
  });

  test('a client route (GET and HEAD) answers index.html', async () => {
    for (const url of ['/lists/abc', '/keys', '/lists/', '/no/such/page']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.body, INDEX, url);
      assertHtmlHeaders(response.headers);
    }
    const head = await app.inject({ method: 'HEAD', url: '/lists/abc' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  test('a hashed asset is cached for a year; another file is revalidated', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/app-3f2a1b.js' });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.body, ASSET);
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(asset.headers['x-content-type-options'], 'nosniff');
    const icon = await app.inject({ method: 'GET', url: '/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['cache-control'], 'no-cache');
  });

  test('a precompressed file is sent as it is to a browser that accepts it: brotli first, then gzip', async () => {
    const url = '/assets/app-3f2a1b.js';
    const br = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), ASSET);
    assert.match(String(br.headers.vary), /accept-encoding/i);
    assert.match(String(br.headers['content-type']), /javascript/);
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');

    const gz = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.rawPayload).toString(), ASSET);

    const plain = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, ASSET);
    assert.match(
      String(plain.headers.vary),
      /accept-encoding/i,
      'caches must not hand the plain copy to all',
    );
  });

  test('a missing asset or file is the app 404, never index.html', async () => {
    for (const url of ['/assets/app-000000.js', '/favicon.ico', '/%2e%2e/secret.txt', '/..%2fsecret.txt']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.json().code, 'not_found', url);
    }
  });

  test('the API, docs and probe paths are the app’s: its routes and its not-found handler', async () => {
    for (const url of ['/api/v1/nope', '/api', '/api/v1/lists/abc', '/docs/nope', '/readyz']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(response.json(), { code: 'not_found', path: url });
    }
    assert.deepEqual((await app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    // Only GET and HEAD reach the dashboard.
    const post = await app.inject({ method: 'POST', url: '/lists/abc' });
    assert.equal(post.statusCode, 404);
    assert.equal(post.json().code, 'not_found');
  });
});

test('the app’s not-found handler is used when it is set after the plugin too', async () => {
  const app = await appWith(built, false);
  try {
    const response = await app.inject({ method: 'GET', url: '/api/v1/nope' });
    assert.deepEqual(response.json(), { code: 'not_found', path: '/api/v1/nope' });
    assert.equal((await app.inject({ method: 'GET', url: '/lists' })).body, INDEX);
  } finally {
    await app.close();
  }
});

test('without a build: a 503 page says how to build, for / and client routes', async () => {
  const app = await appWith(join(scratch, 'not-built'));
  try {
    for (const url of ['/', '/lists/abc']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 503, url);
      assert.match(response.body, /The dashboard is not built: run npm run build/);
      assertHtmlHeaders(response.headers);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/api/v1/nope' })).statusCode, 404);
  } finally {
    await app.close();
  }
});
