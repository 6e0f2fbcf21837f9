/**
 * The verification service against the real SQLite store and the real pipeline over the DNS world.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { BUILT_IN_PLANS, effectiveLimits, type Plan } from '../../src/accounts/plans.ts';
import type { Figures } from '../../src/accounts/ports.ts';
import { SystemClock } from '../../src/adapters/clock/system.ts';
import { CachedDnsResolver } from '../../src/adapters/dns/cached-resolver.ts';
import { NodeDnsResolver } from '../../src/adapters/dns/node-resolver.ts';
import { MemoryResultCache } from '../../src/adapters/result-cache/memory.ts';
import { openStore } from '../../src/adapters/store/open-store.ts';
import type { Store } from '../../src/store.ts';
import { addressKey, type Caller, VerificationService } from '../../src/usage/verification-service.ts';
import { defaultListChecker } from '../../src/verification/checks/domain-lists.ts';
import { SkippingProber } from '../../src/verification/checks/smtp-skipped.ts';
import { Verifier } from '../../src/verification/pipeline.ts';
import { usageOfKey } from '../helpers/usage.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';

let world: DnsWorld;
let resolver: NodeDnsResolver;
let dataDir: string;
let store: Store;
let verifier: Verifier;
let verifyCalls: string[];
let now: Date;

const MONTH = '2026-11';

function limits(monthlyVerifications: number, monthlyBulkRequests = 10): Required<Plan> {
  return {
    ...effectiveLimits(BUILT_IN_PLANS, 'free', NO_FIGURES),
    monthlyVerifications,
    monthlyBulkRequests,
  };
}

const NO_FIGURES = { monthlyQuota: null, bulkQuota: null, rateLimit: null };

async function newCaller(plan: Required<Plan>, caps: Partial<Figures> = {}): Promise<Caller> {
  const { record: key } = await issueApiKey(store, { name: 'test', plan: 'free' });
  return { keyId: key.id, accountId: key.accountId, limits: plan, caps: { ...NO_FIGURES, ...caps } };
}

function service(resultTtlSeconds = 0): VerificationService {
  const counting = {
    verify: (email: string) => {
      verifyCalls.push(email);
      return verifier.verify(email);
    },
  };
  return new VerificationService({
    verifier: counting,
    usage: store,
    cache: new MemoryResultCache(),
    resultTtlSeconds,
    now: () => now,
  });
}

before(async () => {
  world = await startDnsWorld({ 'acme.test': { mx: [{ exchange: 'mx.acme.test', priority: 10 }] } });
  resolver = new NodeDnsResolver({ servers: [world.servers], timeoutMs: 300, tries: 1 });
  verifier = new Verifier({
    dns: new CachedDnsResolver(resolver, new SystemClock()),
    prober: new SkippingProber(),
    lists: defaultListChecker,
    clock: new SystemClock(),
  });
  dataDir = await mkdtemp(join(tmpdir(), 'mailvet-service-'));
  store = await openStore({ dataDir });
});
after(async () => {
  await store.close();
  resolver.cancel();
  await world.close();
  await rm(dataDir, { recursive: true, force: true });
});
beforeEach(() => {
  verifyCalls = [];
  now = new Date('2026-11-22T10:00:00Z');
});

describe('VerificationService.verifyOne', () => {
  it('charges one unit per verification and reports the quota left until the month ends', async () => {
    const caller = await newCaller(limits(2));
    const first = await service().verifyOne(caller, 'jane@acme.test');
    assert.equal(first.kind, 'ok');
    assert.deepEqual(first.quota, {
      limit: 2,
      remaining: 1,
      resetAt: '2026-12-01T00:00:00.000Z',
      resetSeconds: 8 * 86400 + 14 * 3600,
    });
    assert.equal((await service().verifyOne(caller, 'bob@acme.test')).quota.remaining, 0);
    const refused = await service().verifyOne(caller, 'carol@acme.test');
    assert.equal(refused.kind, 'quota_exceeded');
    assert.equal((await usageOfKey(store, caller.keyId, MONTH)).verifications, 2);
    assert.deepEqual(verifyCalls, ['jane@acme.test', 'bob@acme.test']);
  });

  it('an INVALID_SYNTAX result is charged; a dns_error result is given back', async () => {
    const caller = await newCaller(limits(10));
    await service().verifyOne(caller, 'not an address');
    const spoiled = await service().verifyOne(caller, 'jane@servfail.test');
    assert.equal(spoiled.kind === 'ok' && spoiled.result.reason, 'dns_error');
    assert.equal(spoiled.quota.remaining, 9);
    assert.equal((await usageOfKey(store, caller.keyId, MONTH)).verifications, 1);
  });

  it('a new calendar month (UTC) starts from zero', async () => {
    const caller = await newCaller(limits(1));
    assert.equal((await service().verifyOne(caller, 'jane@acme.test')).kind, 'ok');
    assert.equal((await service().verifyOne(caller, 'jane@acme.test')).kind, 'quota_exceeded');
    now = new Date('2026-12-01T00:00:00Z');
    assert.equal((await service().verifyOne(caller, 'jane@acme.test')).kind, 'ok');
  });

  it('the result cache answers repeats (still charged), keyed by normalized address', async () => {
    const caller = await newCaller(limits(10));
    const cached = service(3600);
    await cached.verifyOne(caller, 'jane@ACME.test');
    const again = await cached.verifyOne(caller, '  jane@acme.test ');
    assert.equal(again.kind === 'ok' && again.result.email, 'jane@acme.test');
    assert.deepEqual(verifyCalls, ['jane@ACME.test']);
    assert.equal((await usageOfKey(store, caller.keyId, MONTH)).verifications, 2);
  });

  it('never caches our own DNS failure', async () => {
    const caller = await newCaller(limits(10));
    const cached = service(3600);
    await cached.verifyOne(caller, 'jane@servfail.test');
    await cached.verifyOne(caller, 'jane@servfail.test');
    assert.equal(verifyCalls.length, 2);
  });
});

describe('VerificationService.verifyBulk', () => {
  it('keeps order, verifies duplicates once and charges unique addresses once', async () => {
    const caller = await newCaller(limits(100));
    const emails = ['a@acme.test', ' b@acme.test', 'a@ACME.test', 'bad', 'a@acme.test'];
    const outcome = await service().verifyBulk(caller, emails);
    assert.equal(outcome.kind, 'ok');
    if (outcome.kind !== 'ok') return;
    assert.deepEqual(
      outcome.results.map((r) => [r.email, r.status]),
      [
        ['a@acme.test', 'PROBABLY_VALID'],
        ['b@acme.test', 'PROBABLY_VALID'],
        ['a@ACME.test', 'PROBABLY_VALID'],
        ['bad', 'INVALID_SYNTAX'],
        ['a@acme.test', 'PROBABLY_VALID'],
      ],
    );
    assert.deepEqual(outcome.unprocessed, []);
    assert.equal(verifyCalls.length, 3);
    const usage = await usageOfKey(store, caller.keyId, MONTH);
    assert.deepEqual(usage, { verifications: 3, bulkRequests: 1 });
    assert.equal(outcome.quota.remaining, 97);
  });

  it('processes the first unique addresses that fit and lists every other entry, in order', async () => {
    const caller = await newCaller(limits(3));
    const emails = [
      'a@acme.test',
      'b@acme.test',
      'a@acme.test',
      'c@acme.test',
      'd@acme.test',
      'b@acme.test',
      'e@acme.test',
      'd@acme.test',
    ];
    const outcome = await service().verifyBulk(caller, emails);
    assert.equal(outcome.kind, 'ok');
    if (outcome.kind !== 'ok') return;
    assert.deepEqual(
      outcome.results.map((r) => r.email),
      ['a@acme.test', 'b@acme.test', 'a@acme.test', 'c@acme.test', 'b@acme.test'],
    );
    assert.deepEqual(outcome.unprocessed, ['d@acme.test', 'e@acme.test', 'd@acme.test']);
    assert.equal(outcome.quota.remaining, 0);
    const next = await service().verifyBulk(caller, ['x@acme.test']);
    assert.equal(next.kind, 'quota_exceeded');
    // A refused request does not spend a bulk unit.
    assert.equal((await usageOfKey(store, caller.keyId, MONTH)).bulkRequests, 1);
  });

  it('refuses with bulk_quota_exceeded when the bulk requests are used up', async () => {
    const caller = await newCaller(limits(100, 1));
    assert.equal((await service().verifyBulk(caller, ['a@acme.test'])).kind, 'ok');
    const refused = await service().verifyBulk(caller, ['b@acme.test']);
    assert.equal(refused.kind, 'bulk_quota_exceeded');
    assert.equal(refused.quota.remaining, 99);
  });

  it('gives back the units of dns_error results', async () => {
    const caller = await newCaller(limits(10));
    const outcome = await service().verifyBulk(caller, [
      'a@servfail.test',
      'b@acme.test',
      'c@blackhole.test',
    ]);
    assert.equal(outcome.kind, 'ok');
    assert.equal((await usageOfKey(store, caller.keyId, MONTH)).verifications, 1);
    assert.equal(outcome.quota.remaining, 9);
  });
});

describe('addressKey', () => {
  it('folds the domain (case, IDNA, spaces) but keeps the local part as typed', () => {
    assert.equal(addressKey(' Jane@Bücher.TEST '), 'Jane@xn--bcher-kva.test');
    assert.notEqual(addressKey('Jane@x.test'), addressKey('jane@x.test'));
  });
});
