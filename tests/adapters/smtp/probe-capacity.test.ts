/**
 * How the prober shares its capacity: a probe waiting for a busy MX address holds no global
 * session slot, that wait is bounded (the next MX host is tried), one account gets only its share
 * of probes, and once nobody waits for an answer the socket being opened for it is closed.
 * Real sockets on loopback: tiny SMTP hosts on 127.0.0.1 and 127.0.0.2, a silent one on 127.0.0.3.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SystemClock } from '../../../src/adapters/clock/system.ts';
import { MemoryHostLimiter } from '../../../src/adapters/smtp/host-limiter/memory.ts';
import { MxConnector } from '../../../src/adapters/smtp/mx-connector.ts';
import { Semaphore } from '../../../src/adapters/smtp/semaphore.ts';
import { SmtpProber, type SmtpProberOptions } from '../../../src/adapters/smtp/smtp-prober.ts';
import type { DnsAnswer, DnsResolver, ProbeRequest } from '../../../src/verification/ports.ts';
import type { MxRecord, SmtpCheck } from '../../../src/verification/report.ts';
import { startTinySmtp, type TinySmtp } from './tiny-smtp.ts';

const SLOW_IP = '127.0.0.1';
const FAST_IP = '127.0.0.2';
const SILENT_IP = '127.0.0.3';
const HOLD_MS = 1500;

let slow: TinySmtp;
let fast: TinySmtp;
let silent: net.Server;
const silentSockets = new Set<net.Socket>();
const silentClosed: Array<() => void> = [];

// mx.slow.* → the slow host, mx.fast.* → the fast one, mx.silent.* → the silent one.
const dns: DnsResolver = {
  resolveMx: () => Promise.resolve({ kind: 'nodata', ttlSeconds: 60 }) as Promise<DnsAnswer<MxRecord[]>>,
  resolveA: (host) => {
    const ip = host.startsWith('mx.slow') ? SLOW_IP : host.startsWith('mx.fast') ? FAST_IP : SILENT_IP;
    return Promise.resolve({ kind: 'ok', records: [ip], ttlSeconds: 60 });
  },
  resolveAaaa: () => Promise.resolve({ kind: 'nodata', ttlSeconds: 60 }),
};

before(async () => {
  slow = await startTinySmtp(HOLD_MS, { host: SLOW_IP });
  fast = await startTinySmtp(0, { host: FAST_IP, port: slow.port });
  silent = net.createServer((socket) => {
    silentSockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      silentSockets.delete(socket);
      for (const notify of silentClosed.splice(0)) notify();
    });
  });
  await new Promise<void>((resolve) => silent.listen(slow.port, SILENT_IP, resolve));
});

after(async () => {
  await slow.close();
  await fast.close();
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

const proberWith = (options: Partial<SmtpProberOptions>) =>
  new SmtpProber(dns, new SystemClock(), {
    port: slow.port,
    identity: { helo: 'probe.test', from: 'verify@probe.test' },
    allowPrivate: true,
    connectTimeoutMs: 5000,
    commandTimeoutMs: 5000,
    probeTimeoutMs: 8000,
    ...options,
  });

/** A probe at a fresh domain whose MX hosts are `kinds` (slow, fast, silent) in that order. */
const request = (kinds: string[], accountId?: string): ProbeRequest => {
  const domain = `${randomUUID()}.test`;
  return {
    address: `alice@${domain}`,
    localPart: 'alice',
    asciiDomain: domain,
    mxHosts: kinds.map((kind, i) => ({ exchange: `mx.${kind}.${domain}`, priority: 10 + i })),
    internationalized: false,
    accountId,
  };
};

/** Resolves with the order in which the probes finished. */
const finishOrder = async (probes: Record<string, Promise<SmtpCheck>>) => {
  const order: string[] = [];
  const checks = Object.fromEntries(
    await Promise.all(
      Object.entries(probes).map(async ([name, pending]) => {
        const check = await pending;
        order.push(name);
        return [name, check] as const;
      }),
    ),
  );
  return { order, checks };
};

describe('probe capacity', () => {
  it('a probe waiting for a busy MX address holds no global session slot', async () => {
    // Two sessions in all, one per address: the first holds the slow host for HOLD_MS.
    const prober = proberWith({ maxSessions: 2, perHostSessions: 1, hostWaitMs: 5000 });
    const { order, checks } = await finishOrder({
      first: prober.probe(request(['slow'])),
      waiting: prober.probe(request(['slow'])),
      elsewhere: prober.probe(request(['fast'])),
    });
    // Had the waiting probe taken the second global slot, the fast host's would have waited for the first.
    assert.equal(order[0], 'elsewhere', order.join(', '));
    for (const check of Object.values(checks)) assert.equal(check.verdict, 'catch_all');
  });

  it('the wait for a busy MX address is bounded, then the next MX host is tried', async () => {
    const prober = proberWith({ perHostSessions: 1, hostWaitMs: 200 });
    const { order, checks } = await finishOrder({
      holder: prober.probe(request(['slow'])),
      mover: prober.probe(request(['slow', 'fast'])),
    });
    assert.deepEqual(order, ['mover', 'holder']);
    assert.match(checks.mover?.mxHost ?? '', /^mx\.fast\./);
    assert.equal(checks.mover?.verdict, 'catch_all');
  });

  it("one account gets only its share of sessions; another account's probe goes ahead", async () => {
    const prober = proberWith({ accountProbes: 2, perHostSessions: 10 });
    const sessionsBefore = slow.sessions;
    slow.maxOpen = 0;
    const probes: Record<string, Promise<SmtpCheck>> = {};
    for (let i = 0; i < 6; i++) probes[`a${i}`] = prober.probe(request(['slow'], 'account-a'));
    probes.b = prober.probe(request(['slow'], 'account-b'));
    const { order, checks } = await finishOrder(probes);
    // A's two at once plus B's one: without shares all seven would be open together.
    assert.equal(slow.maxOpen, 3);
    assert.equal(slow.sessions - sessionsBefore, 7);
    assert.ok(order.indexOf('b') < 3, order.join(', '));
    for (const check of Object.values(checks)) assert.equal(check.verdict, 'catch_all');
  });

  it("the share counts sessions, not probes: one account's probes of one domain share a session", async () => {
    const prober = proberWith({ accountProbes: 1, perHostSessions: 1 });
    const sessionsBefore = slow.sessions;
    const rcptsBefore = slow.rcpts.length;
    const first = request(['slow'], 'account-a');
    // Forty addresses at one domain, as a list's lane asks them: far more than the share of one.
    const probes = Array.from({ length: 40 }, (_, i) =>
      prober.probe({ ...first, address: `user${i}@${first.asciiDomain}`, localPart: `user${i}` }),
    );
    const checks = await Promise.all(probes);
    for (const check of checks) assert.equal(check.verdict, 'catch_all');
    // One session asked them all (plus the catch-all probe), instead of one session per probe.
    assert.equal(slow.sessions - sessionsBefore, 1);
    assert.equal(slow.rcpts.length - rcptsBefore, 41);
  });

  it('once the only waiter leaves, the socket opened for it is closed at once', async () => {
    // Connect and command timeouts far beyond the probe's: only the cancellation closes it early.
    const prober = proberWith({ probeTimeoutMs: 400, maxSessions: 1 });
    const closed = new Promise<number>((resolve) => silentClosed.push(() => resolve(Date.now())));
    const check = await prober.probe(request(['silent']));
    const answeredAt = Date.now();
    assert.equal(check.unknownReason, 'timeout');
    const closedAt = await closed;
    assert.ok(closedAt - answeredAt < 1000, `closed ${closedAt - answeredAt} ms after the answer`);
    // The one global slot came back with it.
    assert.equal((await prober.probe(request(['fast']))).verdict, 'catch_all');
  });

  it('an aborted session attempt closes its socket without waiting for the deadline', async () => {
    const connector = new MxConnector(
      dns,
      {
        port: slow.port,
        identity: { helo: 'probe.test', from: 'verify@probe.test' },
        allowPrivate: true,
        connectTimeoutMs: 5000,
        commandTimeoutMs: 5000,
        maxMxHosts: 3,
        addressesPerHost: 2,
        hostWaitMs: 1000,
      },
      { host: new MemoryHostLimiter(1), all: new Semaphore(1) },
    );
    const closed = new Promise<void>((resolve) => silentClosed.push(resolve));
    const domain = `${randomUUID()}.test`;
    const started = Date.now();
    const opened = await connector.open({
      domain,
      mxHosts: [{ exchange: `mx.silent.${domain}`, priority: 10 }],
      accountId: undefined,
      deadlineMs: Date.now() + 10_000,
      signal: AbortSignal.timeout(200),
    });
    await closed;
    assert.ok('reason' in opened && opened.reason === 'timeout');
    assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
  });
});
