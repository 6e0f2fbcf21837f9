/**
 * The dashboard: the single-page app that `npm run build` writes to `dist/web`,
 * served at `/`, precompressed (brotli or gzip) where the browser accepts it. Hashed files under `/assets/` are cached for a year; everything else is
 * revalidated on each load, so a deploy shows at once. A GET for a path that is no file and not the
 * API's (a client route such as `/lists/lst_…`) answers `index.html`, and the app's router shows the
 * page. Paths of the API, the docs and the probes are left to their routes and to the app's own
 * not-found handler: the dashboard never answers them.
 */
import { stat } from 'node:fs/promises';
import { extname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Options of the dashboard plugin. */
export interface DashboardOptions {
  /** The built app's folder (default: `dist/web` at the repository root). */
  root?: string;
}

// This file is src/http/plugins/ under tsx and in dist/cli/chunks/ once bundled (scripts/bundle.mjs
// keeps it at that depth): the repository root is three folders up from either.
const DEFAULT_ROOT = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/** Paths the dashboard leaves alone: the API, the platforms' hooks, its docs page, the probes and metrics. */
const RESERVED = /^\/(?:api(?:\/|$)|hooks\/|docs|healthz$|readyz$|metrics$)/;

/**
 * The dashboard's own policy: scripts, styles and requests from this origin only, no framing. The
 * build has no inline script or style element; React and the charts set styles through the DOM,
 * which `style-src 'self'` does not restrict.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mailvet: dashboard not built</title></head>
<body>
<main>
<h1>The dashboard is not built: run npm run build</h1>
<p>The API answers at <a href="/docs">/docs</a> meanwhile.</p>
</main>
</body>
</html>
`;

/** Serves the built dashboard at `/`, with the single-page app's fallback to `index.html`. */
export const dashboardPlugin = fp<DashboardOptions>(async (app, options) => {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  // Its own scope: `reply.sendFile` stays out of the parent's decorators, so the app may register
  // @fastify/static elsewhere without a clash.
  await app.register(async (scope) => {
    // The build writes `.br` and `.gz` beside its text files (web/vite.config.ts): sent as they
    // are to a browser that accepts them, with `Vary: Accept-Encoding`.
    await scope.register(fastifyStatic, { root, serve: false, preCompressed: true });
    scope.get('/*', { schema: { hide: true } }, (request, reply) => serveDashboard(request, reply, root));
  });
});

async function serveDashboard(request: FastifyRequest, reply: FastifyReply, root: string): Promise<void> {
  const pathname = request.url.split('?', 1)[0] ?? '/';
  if (RESERVED.test(pathname)) return reply.callNotFound();
  reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin');
  const file = await builtFile(root, pathname);
  if (file !== undefined) {
    const hashed = file.startsWith(`assets${sep}`);
    reply.header('cache-control', hashed ? IMMUTABLE : REVALIDATE);
    if (file.endsWith('.html')) reply.header('content-security-policy', DASHBOARD_CSP);
    return reply.sendFile(file, root, { cacheControl: false });
  }
  // A missing asset or file name is a 404, not the app: a browser must not run HTML as a script.
  if (pathname.startsWith('/assets/') || extname(pathname) !== '') return reply.callNotFound();
  reply.header('cache-control', REVALIDATE).header('content-security-policy', DASHBOARD_CSP);
  if ((await builtFile(root, '/index.html')) === undefined) {
    return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
  }
  return reply.sendFile('index.html', root, { cacheControl: false });
}

/** The file under `root` this URL path names (relative to `root`), or undefined when there is none. */
async function builtFile(root: string, pathname: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const wanted = decoded === '/' ? 'index.html' : decoded.slice(1);
  const path = resolve(root, wanted);
  const inside = relative(root, path);
  if (inside === '' || inside.startsWith('..') || inside.startsWith(sep)) return undefined;
  try {
    return (await stat(path)).isFile() ? inside : undefined;
  } catch {
    return undefined;
  }
}
