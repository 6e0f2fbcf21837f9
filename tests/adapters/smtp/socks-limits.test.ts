/**
 * Per-address limits count per proxy: each proxy is its own source address in the eyes of the MX,
 * so the session cap per MX address (in memory and in Redis) and the connection budget per address
 * are kept per (proxy, address). Real sockets: a tiny SMTP host on 127.0.0.1 that holds each
 * session a while and counts how many are open at once, reached through two test SOCKS5 proxies.
 * The Redis cases need REDIS_URL (skipped without it, except under CI).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SystemClock } from '../../../src/adapters/clock/system.ts';
import { MemoryRateLimiter } from '../../../src/adapters/rate-limit/memory.ts';
import { ConnectionBudget } from '../../../src/adapters/smtp/connection-budget.ts';
import type { Dialer } from '../../../src/adapters/smtp/dialer.ts';
import { EgressChoice } from '../../../src/adapters/smtp/egress-choice.ts';
import { MemoryHostLimiter } from '../../../src/adapters/smtp/host-limiter/memory.ts';
import { RedisHostLimiter } from '../../../src/adapters/smtp/host-limiter/redis.ts';
import type { HostSessionLimiter } from '../../../src/adapters/smtp/ports.ts';
import { SmtpProber, type SmtpProberOptions } from '../../../src/adapters/smtp/smtp-prober.ts';
import { SocksDialer } from '../../../src/adapters/smtp/socks-dialer.ts';
import type { DnsResolver, ProbeRequest } from '../../../src/verification/ports.ts';
import { requireRedis } from '../../helpers/services.ts';
import { type SocksServer, startSocksServer } from '../../mailworld/socks-server.ts';
import { type TestRedis, testRedis } from '../redis/redis-test-keys.ts';
import { startTinySmtp, type TinySmtp } from './tiny-smtp.ts';

const redis = await requireRedis('Redis per-proxy host limit suite');

// Every MX host of every domain is the tiny host on 127.0.0.1.
const loopbackDns: DnsResolver = {
  resolveMx: () => Promise.resolve({ kind: 'nodata', ttlSeconds: 60 }),
  resolveA: () => Promise.resolve({ kind: 'ok', records: ['127.0.0.1'], ttlSeconds: 60 }),
  resolveAaaa: () => Promise.resolve({ kind: 'nodata', ttlSeconds: 60 }),
};

let held: TinySmtp;
let quick: TinySmtp;
let proxyA: SocksServer;
let proxyB: SocksServer;
/** Sessions open through both proxies now, and the most at once. */
const through = { open: 0, peak: 0 };
const onSession = (delta: 1 | -1): void => {
  through.open += delta;
  through.peak = Math.max(through.peak, through.open);
};
let dialerA: Dialer;
let dialerB: Dialer;
let redisEnv: TestRedis | undefined;

before(async () => {
  // Each session's MAIL FROM is answered after 400 ms: sessions that may overlap do.
  [held, quick, proxyA, proxyB] = await Promise.all([
    startTinySmtp(400),
    startTinySmtp(0),
    startSocksServer({ onSession }),
    startSocksServer({ onSession }),
  ]);
  dialerA = new SocksDialer({ host: '127.0.0.1', port: proxyA.port, helo: 'exit-a.test' }, () => {});
  dialerB = new SocksDialer({ host: '127.0.0.1', port: proxyB.port, helo: 'exit-b.test' }, () => {});
  if (redis.url !== null) redisEnv = testRedis(redis.url);
});
after(async () => {
  await Promise.all([held.close(), quick.close(), proxyA.close(), proxyB.close(), redisEnv?.cleanup()]);
});
beforeEach(async () => {
  // The last test's sessions end after its probes answered (QUIT comes after): let them go first.
  await Promise.all([proxyA.idle(), proxyB.idle()]);
  proxyA.reset();
  proxyB.reset();
  through.peak = 0;
});

/** Fresh domains that the choice between proxies A and B sends through `dialer`. */
function domainsThrough(dialer: Dialer, count: number): string[] {
  const choice = new EgressChoice([dialerA, dialerB]);
  const found: string[] = [];
  while (found.length < count) {
    const domain = `${randomUUID()}.test`;
    if (choice.for(domain) === dialer) found.push(domain);
  }
  return found;
}

function request(domain: string): ProbeRequest {
  return {
    address: `alice@${domain}`,
    localPart: 'alice',
    asciiDomain: domain,
    mxHosts: [{ exchange: `mx.${domain}`, priority: 10 }],
    internationalized: false,
  };
}

function proberWith(host: TinySmtp, options: Partial<SmtpProberOptions>): SmtpProber {
  return new SmtpProber(loopbackDns, new SystemClock(), {
    port: host.port,
    identity: { helo: 'probe.test', from: 'verify@probe.test' },
    allowPrivate: true,
    connectTimeoutMs: 2_000,
    commandTimeoutMs: 2_000,
    probeTimeoutMs: 10_000,
    hostWaitMs: 8_000,
    egress: [dialerA, dialerB],
    ...options,
  });
}

/** The session caps per MX address under test: one slot each. */
const limiters: Array<{ name: string; skip: string | undefined; make: () => Promise<HostSessionLimiter> }> = [
  { name: 'memory', skip: undefined, make: async () => new MemoryHostLimiter(1) },
  {
    name: 'redis',
    skip: redis.skipReason,
    make: async () =>
      new RedisHostLimiter(await redisEnv!.connect(), { permits: 1, keyPrefix: redisEnv!.prefix('mxhost') }),
  },
];

for (const limiter of limiters) {
  describe(`session cap per MX address, counted per proxy (${limiter.name})`, { skip: limiter.skip }, () => {
    it('two proxies each hold a session to the same MX address at once', async () => {
      const prober = proberWith(held, { hostLimiter: await limiter.make() });
      const [viaA] = domainsThrough(dialerA, 1);
      const [viaB] = domainsThrough(dialerB, 1);
      const sessionsBefore = held.sessions;
      const checks = await Promise.all([prober.probe(request(viaA!)), prober.probe(request(viaB!))]);
      assert.deepEqual(
        checks.map((check) => check.verdict),
        ['catch_all', 'catch_all'],
      );
      assert.equal(held.sessions - sessionsBefore, 2);
      assert.deepEqual([proxyA.stats.sessions, proxyB.stats.sessions], [1, 1]);
      assert.equal(through.peak, 2);
    });

    it('one proxy holds one session at a time to that address; the second waits its turn', async () => {
      const prober = proberWith(held, { hostLimiter: await limiter.make(), egress: [dialerA] });
      const domains = [`${randomUUID()}.test`, `${randomUUID()}.test`];
      const checks = await Promise.all(domains.map((domain) => prober.probe(request(domain))));
      assert.deepEqual(
        checks.map((check) => check.verdict),
        ['catch_all', 'catch_all'],
      );
      assert.equal(proxyA.stats.sessions, 2);
      assert.equal(proxyA.stats.peak, 1);
      assert.equal(through.peak, 1);
    });
  });
}

describe('connection budget per MX address, counted per proxy', () => {
  // A clock that never moves: the buckets never refill, so only their burst (2 tokens) is there.
  const frozen = { now: () => 1_000_000 };
  const budget = () =>
    new ConnectionBudget(new MemoryRateLimiter(frozen), frozen, {
      perAddress: 1,
      perDomain: 100,
      perAccount: 100,
      refusedForMs: 60_000,
    });

  it('each proxy has its own tokens for the same address', async () => {
    const prober = proberWith(quick, { connectionBudget: budget() });
    const domains = [...domainsThrough(dialerA, 2), ...domainsThrough(dialerB, 2)];
    for (const domain of domains) assert.equal((await prober.probe(request(domain))).verdict, 'catch_all');
    assert.deepEqual([proxyA.stats.sessions, proxyB.stats.sessions], [2, 2]);
  });

  it('one proxy past its burst for the address is held back', async () => {
    const prober = proberWith(quick, { connectionBudget: budget(), egress: [dialerA], probeTimeoutMs: 800 });
    const verdicts: string[] = [];
    for (let i = 0; i < 3; i++) verdicts.push((await prober.probe(request(`${randomUUID()}.test`))).verdict);
    assert.deepEqual(verdicts.slice(0, 2), ['catch_all', 'catch_all']);
    assert.equal(verdicts[2], 'unknown');
    assert.equal(proxyA.stats.clients, 2);
  });
});
