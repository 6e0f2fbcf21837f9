/**
 * Child-process side of the API benchmark (bench/api.ts forks this file): serves one variant on
 * 127.0.0.1 and reports its port (and key) over IPC, then waits for `stop`.
 *
 * - `api`: the real server (`startServer`: the container's store, verifier, caches, rate limiter,
 *   timeouts), SQLite in a temporary directory, DNS from the mail world in this same process,
 *   probe off, result cache on; one key with a huge quota and rate limit. Logging as shipped (one
 *   info line per request to standard output), or off with BENCH_API_LOGGING=off.
 * - `api-uncached`: the same with MAILVET_RESULT_TTL=0, so every request runs the pipeline (the
 *   DNS cache stays warm).
 * - `bare`: a bare Fastify route (same Fastify, logging off too) that takes the same JSON request
 *   and answers with a fixed object whose JSON is the API's answer, byte for byte.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { issueApiKey } from '../src/accounts/key-issuance.ts';
import { openStore } from '../src/adapters/store/open-store.ts';
import { limitHeapGrowth } from '../src/cli/heap-growth.ts';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { startDnsWorld } from '../tests/mailworld/dns-server.ts';

/** What a child reports once it listens. */
export interface ServerReady {
  port: number;
  key?: string;
}

/** Which server a child runs. */
export type ServerRole = 'api' | 'api-uncached' | 'bare';

const HUGE = 1_000_000_000_000;

async function serveApi(resultTtlSeconds: number): Promise<{ ready: ServerReady; stop(): Promise<void> }> {
  const world = await startDnsWorld();
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-bench-'));
  const store = await openStore({ dataDir });
  const generated = await issueApiKey(store, {
    name: 'bench',
    plan: 'pro',
    monthlyQuota: HUGE,
    bulkQuota: HUGE,
    rateLimit: HUGE,
  });
  await store.close();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    MAILVET_DATA_DIR: dataDir,
    MAILVET_DNS_SERVERS: world.servers,
    MAILVET_SMTP_PROBE: 'false',
    MAILVET_RESULT_TTL: String(resultTtlSeconds),
  });
  // As deployed: one info line per request, to standard output (the parent points it at /dev/null).
  const logger = process.env.BENCH_API_LOGGING === 'off' ? false : { level: 'info' as const };
  limitHeapGrowth(); // as `mailvet serve` does
  const server = await startServer(config, { logger, handleSignals: false });
  const port = Number(new URL(server.url).port);
  return {
    ready: { port, key: generated.key },
    stop: async () => {
      await server.close();
      await world.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function serveBare(answer: unknown): Promise<{ ready: ServerReady; stop(): Promise<void> }> {
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.post('/bare', async () => answer);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return { ready: { port }, stop: () => app.close() };
}

/** Runs the role named in BENCH_API_ROLE; returns false when this process is not a bench child. */
export async function runServerChild(): Promise<boolean> {
  const role = process.env.BENCH_API_ROLE as ServerRole | undefined;
  if (role === undefined || process.send === undefined) return false;
  const running =
    role === 'bare'
      ? await serveBare(JSON.parse(process.env.BENCH_BARE_ANSWER ?? '{}'))
      : await serveApi(role === 'api' ? 86_400 : 0);
  process.on('message', async (message) => {
    if (message !== 'stop') return;
    await running.stop();
    // A normal exit, so `--cpu-prof` writes its profile.
    process.exit(0);
  });
  process.send(running.ready);
  return true;
}

await runServerChild();
