/**
 * The emulator's HTTP server: routes `/{dc}/3.0/...` to the API after authenticating the key or OAuth
 * token for that data centre, enforcing the 10-connection limit, adding latency and injected faults
 * and recording per-account statistics; serves the OAuth endpoints and the batch result archives.
 * Batch operations run through the same router in-process, outside the limit.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiContext, type ApiRequest, type ApiResult, matchRoute, project, type Route } from './api.ts';
import { batchEngine } from './batches.ts';
import { campaignRoutes } from './campaigns.ts';
import { listRoutes } from './lists.ts';
import { memberRoutes } from './members.ts';
import { mergeFieldRoutes } from './merge-fields.ts';
import { handleOAuth, type OAuthClient } from './oauth.ts';
import { McProblem, notFound } from './problems.ts';
import { segmentUpdateRoutes } from './segment-updates.ts';
import { segmentRoutes } from './segments.ts';
import type { Account, Fault, World } from './state.ts';
import { webhookRoutes } from './webhooks.ts';

/** Mailchimp's limit of simultaneous connections per account. */
export const CONCURRENCY_LIMIT = 10;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The HTTP side of a running emulator. */
export interface ApiServer {
  /** Added to every API request. */
  latencyMs: number;
  /** Waits for background effects (webhook deliveries started by API writes). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Serves `world` on 127.0.0.1 (a free port, written to `world.origin`); `oauth` enables the OAuth endpoints. */
export async function startApiServer(
  world: World,
  oauth: OAuthClient | undefined,
  port = 0,
): Promise<ApiServer> {
  const background = new Set<Promise<void>>();
  let latencyMs = 0;

  const later = (task: () => Promise<void>) => {
    const running = task().catch(() => undefined);
    background.add(running);
    void running.finally(() => background.delete(running));
  };
  const run = async (account: Account, request: ApiRequest, via: 'api' | 'batch'): Promise<ApiResult> => {
    const ctx: ApiContext = { world, account, via, later };
    try {
      const match = matchRoute(routes, request.method, request.path);
      if (!match) throw notFound();
      if ('allowed' in match)
        throw new McProblem('methodNotAllowed', undefined, undefined, { allow: match.allowed.join(', ') });
      const result = await match.route.handler(ctx, request, match.params);
      return result.body === undefined ? result : { ...result, body: project(result.body, request.query) };
    } catch (error) {
      if (!(error instanceof McProblem)) throw error;
      return { status: error.status, body: error.body(), headers: error.headers };
    }
  };
  const batches = batchEngine(world, (account, request) => run(account, request, 'batch'));
  const routes: Route[] = [
    ...listRoutes,
    ...memberRoutes,
    ...mergeFieldRoutes,
    ...segmentRoutes,
    ...segmentUpdateRoutes,
    ...campaignRoutes,
    ...webhookRoutes,
    ...batches.routes,
  ];

  const serveApi = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL, raw: string) => {
    const api = /^\/([a-z]+\d+)\/3\.0(\/.*)?$/.exec(url.pathname);
    if (!api) return send(res, { status: 404, body: notFound().body() });
    const [dc, path] = [api[1] ?? '', api[2] ?? '/'];
    const account = authenticate(world, req.headers.authorization, dc);
    const method = req.method ?? 'GET';
    const match = matchRoute(routes, method, path);
    const routeKey = `${method} ${match && 'route' in match ? match.route.pattern : '(unmatched)'}`;
    account.requests++;
    account.byRoute[routeKey] = (account.byRoute[routeKey] ?? 0) + 1;
    account.inFlight++;
    account.maxInFlight = Math.max(account.maxInFlight, account.inFlight);
    if (account.inFlight > CONCURRENCY_LIMIT) {
      account.inFlight--;
      await sleep(latencyMs);
      throw new McProblem('tooManyRequests');
    }
    try {
      await sleep(latencyMs);
      const fault = account.faults[0];
      const faulty = fault !== undefined && (fault.method === undefined || fault.method === method);
      if (faulty) {
        if (--fault.remaining <= 0) account.faults.shift();
      }
      const failWith = (chosen: Fault) =>
        new McProblem(
          chosen.status === 429 ? 'tooManyRequests' : chosen.status === 500 ? 'internal' : 'unavailable',
          undefined,
          undefined,
          chosen.retryAfterSeconds === undefined ? {} : { 'retry-after': String(chosen.retryAfterSeconds) },
        );
      if (faulty && !fault.afterHandling) throw failWith(fault);
      let body: unknown;
      if (raw.trim() !== '' && method !== 'GET') {
        try {
          body = JSON.parse(raw);
        } catch {
          throw new McProblem('jsonParse');
        }
      }
      const answer = await run(account, { method, path, query: url.searchParams, body }, 'api');
      if (faulty) throw failWith(fault);
      send(res, answer);
    } finally {
      account.inFlight--;
    }
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = await readBody(req);
      try {
        if (url.pathname.startsWith('/oauth2/')) return handleOAuth(world, oauth, req, res, url, raw);
        const archive = /^\/batch-results\/([0-9a-f]+)\.tar\.gz$/.exec(url.pathname);
        if (archive) {
          const bytes = batches.archive(archive[1] ?? '');
          if (!bytes) return send(res, { status: 404, body: notFound().body() });
          res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-length': bytes.length });
          return res.end(bytes);
        }
        await serveApi(req, res, url, raw);
      } catch (error) {
        const problem = error instanceof McProblem ? error : new McProblem('internal', String(error));
        send(res, { status: problem.status, body: problem.body(), headers: problem.headers });
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  world.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    get latencyMs() {
      return latencyMs;
    },
    set latencyMs(value: number) {
      latencyMs = value;
    },
    idle: async () => {
      while (background.size > 0) await Promise.all([...background]);
    },
    async close() {
      batches.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The account a request's credentials name, for the data centre in its path; 401 otherwise. */
function authenticate(world: World, header: string | undefined, dc: string): Account {
  if (!header) throw new McProblem('keyMissing');
  const space = header.indexOf(' ');
  const [scheme, credentials] =
    space < 0 ? [header, ''] : [header.slice(0, space), header.slice(space + 1).trim()];
  let account: Account | undefined;
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const key = decoded.slice(decoded.indexOf(':') + 1);
    if (key === '' || !decoded.includes(':')) throw new McProblem('keyMissing');
    account = [...world.accounts.values()].find(
      (candidate) => candidate.apiKey === key && !candidate.keyRevoked,
    );
  } else if (scheme === 'Bearer' || scheme === 'OAuth') {
    account = world.accounts.get(world.tokens.get(credentials) ?? '');
  }
  if (!account || account.dc !== dc) throw new McProblem('keyInvalid');
  return account;
}

function send(res: http.ServerResponse, result: ApiResult): void {
  const problem = result.status >= 400;
  const headers: Record<string, string> = { ...result.headers };
  if (result.body !== undefined)
    headers['content-type'] = `application/${problem ? 'problem+json' : 'json'}; charset=utf-8`;
  res.writeHead(result.status, headers);
  res.end(result.body === undefined ? undefined : JSON.stringify(result.body));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
