/**
 * A test build of the HTTP API on real parts, wired by the composition root (`createServices`): the
 * SQLite store in a temporary directory, the real verifier pointed at a DNS world on loopback (SMTP
 * probe off), the verification service, the memory rate limiter. One key is made up front with the figures asked for.
 *
 *   const t = await testApp({ quota: 50, rate: 1000 });
 *   const response = await t.app.inject({ method: 'POST', url: '/api/v1/verify', headers: t.auth(), payload: {...} });
 *   await t.close();
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { BUILT_IN_PLANS, type Plan } from '../../src/accounts/plans.ts';
import type { ApiKeyRecord } from '../../src/accounts/ports.ts';
import { SystemClock } from '../../src/adapters/clock/system.ts';
import { CachedDnsResolver } from '../../src/adapters/dns/cached-resolver.ts';
import { NodeDnsResolver } from '../../src/adapters/dns/node-resolver.ts';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices, type ServiceOverrides } from '../../src/container/index.ts';
import { createLogger } from '../../src/container/logger.ts';
import type { Services } from '../../src/container/services.ts';
import { type AppDeps, type BuildAppOptions, buildApp } from '../../src/http/app.ts';
import type { LoggerSettings } from '../../src/http/logger.ts';
import type { Store } from '../../src/store.ts';
import type { RateLimiter } from '../../src/usage/ports.ts';
import { createListChecker } from '../../src/verification/checks/domain-lists.ts';
import { SkippingProber } from '../../src/verification/checks/smtp-skipped.ts';
import { Verifier } from '../../src/verification/pipeline.ts';
import type { Clock } from '../../src/verification/ports.ts';
import { type DnsWorld, startDnsWorld, type Zones } from '../mailworld/dns-server.ts';

/**
 * Figures of a key. Without `accountId` the key gets an account of its own on `plan` with these
 * overrides; with it, they are the key's own caps in that account (and `plan` is ignored).
 */
export interface KeyFigures {
  /** Plan name (default `free`). */
  plan?: string;
  /** Monthly verifications. */
  quota?: number;
  /** Monthly bulk requests. */
  bulkQuota?: number;
  /** Requests per second; the burst is twice this. */
  rate?: number;
  name?: string;
  /** An existing account to add the key to (default: a new account of its own). */
  accountId?: string;
}

export interface TestAppOptions extends KeyFigures {
  /** Extra DNS zones for the world (the built-in test zones are always there). */
  zones?: Zones;
  /** Replaces the real verifier (e.g. a slow one). */
  verifier?: Pick<Verifier, 'verify'>;
  /** Wraps the verifier (real or given), e.g. to count or slow down verifications. */
  wrapVerifier?: (verifier: Pick<Verifier, 'verify'>) => Pick<Verifier, 'verify'>;
  /** Replaces the verification service (e.g. one that throws). */
  service?: AppDeps['service'];
  /** Replaces the rate limiter. */
  rateLimiter?: RateLimiter;
  /** Clock of the memory rate limiter (default: the system's). */
  rateClock?: Clock;
  /** Replaces the store's readiness check. */
  ready?: AppDeps['ready'];
  /** Result cache lifetime, seconds (default 0: every request verifies afresh). */
  resultTtlSeconds?: number;
  /** The service's wall clock (calendar month). */
  now?: () => Date;
  plans?: Readonly<Record<string, Plan>>;
  /** More configuration (e.g. MAILVET_SIGNUP, MAILVET_PUBLIC_URL). */
  env?: Record<string, string>;
  logger?: LoggerSettings | false;
  appOptions?: Omit<BuildAppOptions, 'logger'>;
  /** Platforms offered beside Mailchimp (an adapter under test). */
  moreProviders?: ServiceOverrides['moreProviders'];
}

/** A built test app and what it runs on. */
export interface TestApp {
  app: FastifyInstance;
  store: Store;
  /** The key made up front, and its record. */
  key: string;
  keyRecord: ApiKeyRecord;
  dns: DnsWorld;
  dataDir: string;
  service: AppDeps['service'];
  /** `{ authorization: 'Bearer <key>' }` for this key or another one. */
  auth(key?: string): { authorization: string };
  /** Makes another key (same account) with its own figures. */
  addKey(figures?: KeyFigures): Promise<{ key: string; record: ApiKeyRecord }>;
  /** This month's usage of a key (default: the first one). */
  usage(keyId?: string): Promise<{ verifications: number; bulkRequests: number }>;
  /** Adds the daily usage figures counted so far to the store (done once a second otherwise). */
  flushDaily(): Promise<void>;
  /** Waits for the watches' events in hand (they are worked on after the hook answers). */
  watchesIdle(): Promise<void>;
  /** The connected platforms (a test connects by OAuth without a browser). */
  integrations: Services['integrations'];
  /** This month's usage of a key's account (default: the first key's). */
  accountUsage(keyId?: string): Promise<{ verifications: number; bulkRequests: number }>;
  close(): Promise<void>;
}

/** Builds the API on a fresh store, DNS world and key. */
export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-http-'));
  const dns = await startDnsWorld(options.zones);
  const baseVerifier = options.verifier ?? worldVerifier(dns);
  const verifier = options.wrapVerifier?.(baseVerifier) ?? baseVerifier;
  const now = options.now ?? (() => new Date());
  // Wired by the composition root, as `mailvet serve` is, with the test's parts put in.
  const services = await createServices(
    loadConfig({
      MAILVET_DATA_DIR: dataDir,
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_RESULT_TTL: String(options.resultTtlSeconds ?? 0),
      ...options.env,
    }),
    {
      log: createLogger(false),
      verifier,
      rateLimiter: options.rateLimiter ?? new MemoryRateLimiter(options.rateClock ?? new SystemClock()),
      plans: options.plans ?? BUILT_IN_PLANS,
      now,
      ...(options.moreProviders && { moreProviders: options.moreProviders }),
    },
  );
  const { store } = services;
  const service = options.service ?? services.service;
  // Each key is its own customer, as `mailvet keys create` makes it, unless a test shares one.
  const addKey = (figures: KeyFigures = {}) =>
    issueApiKey(
      store,
      figures.accountId === undefined
        ? {
            name: figures.name ?? 'test key',
            plan: figures.plan ?? 'free',
            monthlyQuota: figures.quota,
            bulkQuota: figures.bulkQuota,
            rateLimit: figures.rate,
          }
        : {
            accountId: figures.accountId,
            name: figures.name ?? 'test key',
            caps: {
              ...(figures.quota !== undefined && { monthlyQuota: figures.quota }),
              ...(figures.bulkQuota !== undefined && { bulkQuota: figures.bulkQuota }),
              ...(figures.rate !== undefined && { rateLimit: figures.rate }),
            },
          },
    );
  const first = await addKey(options);

  const app = buildApp(
    { ...services, service, ready: options.ready },
    { ...options.appOptions, logger: options.logger ?? false },
  );
  await app.ready();

  const usageOf = async (keyId: string) => {
    const record = await store.findApiKeyById(keyId);
    if (record === null) throw new Error(`no key ${keyId}`);
    return store.usage({ accountId: record.accountId, keyId }, now().toISOString().slice(0, 7));
  };
  let closed = false;
  return {
    app,
    store,
    key: first.key,
    keyRecord: first.record,
    dns,
    dataDir,
    service,
    auth: (key = first.key) => ({ authorization: `Bearer ${key}` }),
    addKey,
    usage: async (keyId = first.record.id) => (await usageOf(keyId)).key,
    accountUsage: async (keyId = first.record.id) => (await usageOf(keyId)).account,
    flushDaily: () => services.daily.flush(),
    watchesIdle: () => services.watches.idle(),
    integrations: services.integrations,
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      await services.close();
      await dns.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The real pipeline over the DNS world, probe skipped (as MAILVET_SMTP_PROBE=false wires it). */
export function worldVerifier(dns: DnsWorld): Verifier {
  const clock = new SystemClock();
  // Generous bounds: a busy test process must not turn a loopback answer into a dns_error.
  const resolver = new NodeDnsResolver({ servers: [dns.servers], timeoutMs: 2000, tries: 2 });
  return new Verifier({
    dns: new CachedDnsResolver(resolver, clock),
    prober: new SkippingProber(),
    lists: createListChecker({ allowDomains: [], denyDomains: [] }),
    clock,
  });
}

/** A clock the test moves by hand (for the rate limiter's token buckets). */
export class ManualClock implements Clock {
  constructor(public nowMs = 1_700_000_000_000) {}
  now(): number {
    return this.nowMs;
  }
  advance(ms: number): void {
    this.nowMs += ms;
  }
}
