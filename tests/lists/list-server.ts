/**
 * The real server (startServer: store, queue, in-process worker, webhooks) on the mail world, for
 * the list-job tests: lists go through the API and are verified against real DNS and SMTP servers
 * on loopback. Keys are made in the store; `account()` makes a key of another account.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { loadConfig } from '../../src/config.ts';
import type { ListView } from '../../src/lists/list-view.ts';
import { type RunningServer, type StartServerOptions, startServer } from '../../src/server.ts';
import { type MailWorld, type MailWorldOptions, startMailWorld } from '../mailworld/mail-world.ts';

export interface ListServer {
  server: RunningServer;
  world: MailWorld;
  url: string;
  dataDir: string;
  /** A key (default account) with these figures. */
  key(figures?: { quota?: number; rate?: number; name?: string }): Promise<string>;
  /** A key of a new account. */
  otherAccountKey(): Promise<string>;
  /** fetch against the server with the key. */
  api(key: string, path: string, init?: RequestInit): Promise<Response>;
  /** A JSON request with the key: its status and parsed body (undefined when empty). */
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, asserted on field by field
  call(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Polls GET /lists/{id} until `done(list)` or the hang guard. */
  waitFor(key: string, id: string, done: (list: ListView) => boolean, guardMs?: number): Promise<ListView>;
  close(): Promise<void>;
}

/** Starts a mail world and a server on it; `env` adds or overrides configuration. */
export async function startListServer(
  env: Record<string, string> = {},
  worldOptions: MailWorldOptions = {},
  serverOptions: Pick<StartServerOptions, 'requestTimeoutMs' | 'logger' | 'moreProviders'> = {},
): Promise<ListServer> {
  const world = await startMailWorld(worldOptions);
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-lists-'));
  const config = loadConfig({
    ...world.env,
    HOST: '127.0.0.1',
    PORT: '0',
    MAILVET_DATA_DIR: dataDir,
    MAILVET_RESULT_TTL: '0',
    MAILVET_SMTP_PROBE_TIMEOUT_MS: '4000',
    MAILVET_LIST_RECHECK_MS: '1200',
    MAILVET_WEBHOOK_ALLOW_PRIVATE: 'true',
    MAILVET_WEBHOOK_RETRY_MS: '100',
    MAILVET_LIST_SWEEP_MS: '300',
    ...env,
  });
  const server = await startServer(config, { logger: false, handleSignals: false, ...serverOptions });
  const { store } = server;

  const key = async (figures: { quota?: number; rate?: number; name?: string } = {}) => {
    const issued = await issueApiKey(store, {
      name: figures.name ?? 'list test',
      plan: 'pro',
      monthlyQuota: figures.quota,
      rateLimit: figures.rate ?? 1000,
    });
    return issued.key;
  };
  const api = (apiKey: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${apiKey}`, ...(init.headers as Record<string, string>) },
    });
  const call = async (apiKey: string, method: string, path: string, body?: unknown) => {
    const response = await api(apiKey, path, {
      method,
      ...(body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    server,
    world,
    url: server.url,
    dataDir,
    key,
    otherAccountKey: async () => key({ name: 'Other' }),
    api,
    call,
    async waitFor(apiKey, id, done, guardMs = 60_000) {
      const deadline = Date.now() + guardMs;
      for (;;) {
        const response = await api(apiKey, `/lists/${id}`);
        const list = (await response.json()) as ListView;
        if (done(list)) return list;
        // A hang guard, not a timing assertion: the machine may be slow, the list must still end.
        if (Date.now() > deadline) throw new Error(`list ${id} still ${list.state}: ${JSON.stringify(list)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await server.close();
      await world.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs a JSON list and returns the 202 body. */
export async function createJsonList(
  list: ListServer,
  apiKey: string,
  body: Record<string, unknown>,
): Promise<ListView & { webhook_secret?: string }> {
  const response = await list.api(apiKey, '/lists', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 202) throw new Error(`POST /lists: ${response.status} ${await response.text()}`);
  return (await response.json()) as ListView & { webhook_secret?: string };
}
