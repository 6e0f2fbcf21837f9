/**
 * The prober's own memory of catch-all verdicts is bounded: with room for one domain, a verdict
 * pushed out by another domain's is probed again, while a remembered one is not; and the memory
 * itself, alone.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SystemClock } from '../../../src/adapters/clock/system.ts';
import { CachedDnsResolver } from '../../../src/adapters/dns/cached-resolver.ts';
import { NodeDnsResolver } from '../../../src/adapters/dns/node-resolver.ts';
import { CatchAllMemory } from '../../../src/adapters/smtp/catch-all-memory.ts';
import { SmtpProber } from '../../../src/adapters/smtp/smtp-prober.ts';
import type { MxRecord } from '../../../src/verification/report.ts';
import { type MailWorld, startMailWorld } from '../../mailworld/mail-world.ts';

let world: MailWorld;
let prober: SmtpProber;

before(async () => {
  world = await startMailWorld();
  const clock = new SystemClock();
  const dns = new CachedDnsResolver(
    new NodeDnsResolver({ servers: [world.servers], timeoutMs: 2000, tries: 2 }),
    clock,
  );
  prober = new SmtpProber(dns, clock, {
    port: world.smtpPort,
    identity: { helo: 'probe.mailvet.test', from: 'verify@probe.mailvet.test' },
    allowPrivate: true,
    connectTimeoutMs: 1000,
    commandTimeoutMs: 2000,
    probeTimeoutMs: 5000,
    catchAllEntries: 1,
  });
});
after(() => world.close());

const probe = (localPart: string, domain: string) => {
  const mxHosts: MxRecord[] = [{ exchange: `mx.${domain}`, priority: 10 }];
  return prober.probe({
    address: `${localPart}@${domain}`,
    localPart,
    asciiDomain: domain,
    mxHosts,
    internationalized: false,
  });
};

test('a verdict pushed out of the bounded memory is probed again; a kept one is not', async () => {
  const catchAll = world.hosts['catch-all'].stats;
  await probe('anyone', 'catchall.test');
  assert.equal(catchAll.rcptCommands, 2, 'the address and the random catch-all probe');
  await probe('someone', 'catchall.test');
  assert.equal(catchAll.rcptCommands, 3, 'the verdict was remembered: one RCPT');
  await probe('alice', 'accept.test');
  await probe('again', 'catchall.test');
  assert.equal(catchAll.rcptCommands, 5, "accept.test's verdict pushed it out: probed again");
});

test('CatchAllMemory keeps at most maxEntries verdicts, the least recently used dropped first', async () => {
  // Not 0: lru-cache reads a start time of 0 as "no TTL", and no real clock reads 0.
  let now = 1_000;
  const memory = new CatchAllMemory({ now: () => now }, { ttlSeconds: 60, maxEntries: 2 });
  memory.remember('a.test', { kind: 'deliverable' });
  memory.remember('b.test', { kind: 'undeliverable' });
  assert.equal(await memory.lookup('a.test'), true);
  memory.remember('c.test', { kind: 'deliverable' });
  assert.equal(await memory.lookup('b.test'), undefined, 'the least recently used went');
  assert.equal(await memory.lookup('a.test'), true);
  assert.equal(await memory.lookup('c.test'), true);
  now += 61_000;
  assert.equal(await memory.lookup('a.test'), undefined, 'expired');
  memory.remember('d.test', { kind: 'unknown', reason: 'greylisted' });
  assert.equal(await memory.lookup('d.test'), undefined, 'an unclear answer is not remembered');
});
