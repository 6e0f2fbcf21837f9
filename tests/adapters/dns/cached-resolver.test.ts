import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SystemClock } from '../../../src/adapters/clock/system.ts';
import { CachedDnsResolver } from '../../../src/adapters/dns/cached-resolver.ts';
import { NodeDnsResolver } from '../../../src/adapters/dns/node-resolver.ts';
import { checkDns } from '../../../src/verification/checks/dns.ts';
import type { Clock, DnsAnswer, DnsResolver } from '../../../src/verification/ports.ts';
import type { MxRecord } from '../../../src/verification/report.ts';
import { type DnsWorld, startDnsWorld } from '../../mailworld/dns-server.ts';

class FakeClock implements Clock {
  ms = 1_000;
  now(): number {
    return this.ms;
  }
  advanceSeconds(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

type Answer = DnsAnswer<unknown>;

/**
 * The inner resolver: counts questions and answers each from a script. A script entry may be a
 * function returning a promise, so a test can hold the answer back.
 */
class ScriptedResolver implements DnsResolver {
  readonly calls: string[] = [];
  answers = new Map<string, Answer | (() => Promise<Answer>)>();

  #answer(key: string): Promise<never> {
    this.calls.push(key);
    const scripted = this.answers.get(key) ?? { kind: 'nxdomain', ttlSeconds: 300 };
    return (typeof scripted === 'function' ? scripted() : Promise.resolve(scripted)) as Promise<never>;
  }
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    return this.#answer(`MX ${domain}`);
  }
  resolveA(host: string): Promise<DnsAnswer<string[]>> {
    return this.#answer(`A ${host}`);
  }
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>> {
    return this.#answer(`AAAA ${host}`);
  }
  count(key: string): number {
    return this.calls.filter((call) => call === key).length;
  }
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const MX_OK: Answer = {
  kind: 'ok',
  records: [{ exchange: 'mx.example.test', priority: 10 }],
  ttlSeconds: 600,
};

function setup(options = {}) {
  const inner = new ScriptedResolver();
  const clock = new FakeClock();
  const cache = new CachedDnsResolver(inner, clock, options);
  return { inner, clock, cache };
}

describe('CachedDnsResolver (fake clock, scripted inner)', () => {
  test('a positive answer is kept for its TTL, then asked again', async () => {
    const { inner, clock, cache } = setup();
    inner.answers.set('MX example.test', MX_OK);
    assert.deepEqual(await cache.resolveMx('example.test'), MX_OK);
    clock.advanceSeconds(599);
    assert.deepEqual(await cache.resolveMx('example.test'), MX_OK);
    assert.equal(inner.count('MX example.test'), 1);
    clock.advanceSeconds(1);
    await cache.resolveMx('example.test');
    assert.equal(inner.count('MX example.test'), 2);
  });

  test('a warm hit hands back the very same settled promise', async () => {
    const { inner, cache } = setup();
    inner.answers.set('MX example.test', MX_OK);
    const first = cache.resolveMx('example.test');
    await first;
    assert.equal(cache.resolveMx('example.test'), first);
  });

  test('positive TTLs are clamped to [min, max]', async () => {
    const { inner, clock, cache } = setup({ minTtlSeconds: 60, maxTtlSeconds: 3600 });
    inner.answers.set('A short.test', { kind: 'ok', records: ['192.0.2.1'], ttlSeconds: 5 });
    inner.answers.set('A long.test', { kind: 'ok', records: ['192.0.2.2'], ttlSeconds: 86_400 });
    await cache.resolveA('short.test');
    await cache.resolveA('long.test');
    clock.advanceSeconds(59);
    await cache.resolveA('short.test');
    assert.equal(inner.count('A short.test'), 1, 'a 5 s TTL lives at least 60 s');
    clock.advanceSeconds(1);
    await cache.resolveA('short.test');
    assert.equal(inner.count('A short.test'), 2);
    clock.advanceSeconds(3600 - 60 - 1);
    await cache.resolveA('long.test');
    assert.equal(inner.count('A long.test'), 1);
    clock.advanceSeconds(1);
    await cache.resolveA('long.test');
    assert.equal(inner.count('A long.test'), 2, 'a one-day TTL lives at most an hour');
  });

  test('NXDOMAIN and NODATA are cached, clamped to the negative bounds', async () => {
    const { inner, clock, cache } = setup({ minNegativeTtlSeconds: 30, maxNegativeTtlSeconds: 300 });
    inner.answers.set('MX gone.test', { kind: 'nxdomain', ttlSeconds: 86_400 });
    inner.answers.set('AAAA v4only.test', { kind: 'nodata', ttlSeconds: 1 });
    assert.deepEqual(await cache.resolveMx('gone.test'), { kind: 'nxdomain', ttlSeconds: 86_400 });
    await cache.resolveAaaa('v4only.test');
    clock.advanceSeconds(29);
    await cache.resolveMx('gone.test');
    await cache.resolveAaaa('v4only.test');
    assert.deepEqual([inner.count('MX gone.test'), inner.count('AAAA v4only.test')], [1, 1]);
    clock.advanceSeconds(1);
    await cache.resolveAaaa('v4only.test');
    assert.equal(inner.count('AAAA v4only.test'), 2, 'NODATA with a 1 s TTL lives 30 s');
    clock.advanceSeconds(300 - 30 - 1);
    await cache.resolveMx('gone.test');
    assert.equal(inner.count('MX gone.test'), 1);
    clock.advanceSeconds(1);
    await cache.resolveMx('gone.test');
    assert.equal(inner.count('MX gone.test'), 2, 'NXDOMAIN lives at most 300 s');
  });

  test('failures are remembered briefly so a dead server is not hammered', async () => {
    const { inner, clock, cache } = setup({ errorTtlSeconds: 15 });
    inner.answers.set('MX down.test', { kind: 'error', failure: 'timeout', retry: true });
    for (let i = 0; i < 5; i++) await cache.resolveMx('down.test');
    assert.equal(inner.count('MX down.test'), 1);
    clock.advanceSeconds(15);
    inner.answers.set('MX down.test', MX_OK);
    assert.deepEqual(await cache.resolveMx('down.test'), MX_OK);
    assert.equal(inner.count('MX down.test'), 2);
  });

  test('concurrent callers share one in-flight lookup per (type, name)', async () => {
    const { inner, cache } = setup();
    const pending = deferred<Answer>();
    inner.answers.set('MX busy.test', () => pending.promise);
    inner.answers.set('A busy.test', { kind: 'ok', records: ['192.0.2.9'], ttlSeconds: 60 });
    const callers = Array.from({ length: 20 }, () => cache.resolveMx('busy.test'));
    const address = cache.resolveA('busy.test');
    assert.equal(inner.count('MX busy.test'), 1);
    assert.equal(inner.count('A busy.test'), 1, 'another type of the same name is its own question');
    pending.resolve(MX_OK);
    for (const answer of await Promise.all(callers)) assert.deepEqual(answer, MX_OK);
    assert.equal((await address).kind, 'ok');
    assert.equal(inner.count('MX busy.test'), 1);
  });

  test('an in-flight lookup does not expire while it waits, however long', async () => {
    const { inner, clock, cache } = setup();
    const pending = deferred<Answer>();
    inner.answers.set('MX slow.test', () => pending.promise);
    const first = cache.resolveMx('slow.test');
    clock.advanceSeconds(7200);
    const second = cache.resolveMx('slow.test');
    pending.resolve(MX_OK);
    assert.deepEqual(await Promise.all([first, second]), [MX_OK, MX_OK]);
    assert.equal(inner.count('MX slow.test'), 1);
  });

  test('a rejected lookup (a bug upstream) reaches its callers and is not cached', async () => {
    const { inner, cache } = setup();
    inner.answers.set('MX buggy.test', () => Promise.reject(new Error('boom')));
    await assert.rejects(cache.resolveMx('buggy.test'), /boom/);
    inner.answers.set('MX buggy.test', MX_OK);
    assert.deepEqual(await cache.resolveMx('buggy.test'), MX_OK);
    assert.equal(inner.count('MX buggy.test'), 2);
  });

  test('the cache holds at most maxEntries names and evicts the least recently fetched', async () => {
    const { inner, cache } = setup({ maxEntries: 3 });
    for (const name of ['one', 'two', 'three']) await cache.resolveMx(`${name}.test`);
    await cache.resolveA('one.test'); // a fresh fetch for "one" makes "two" the oldest
    await cache.resolveMx('four.test');
    assert.equal(cache.size, 3);
    await cache.resolveMx('one.test');
    await cache.resolveMx('three.test');
    assert.deepEqual([inner.count('MX one.test'), inner.count('MX three.test')], [1, 1]);
    await cache.resolveMx('two.test');
    assert.equal(inner.count('MX two.test'), 2, '"two" was evicted');
    assert.equal(cache.size, 3);
  });
});

describe('CachedDnsResolver in front of the real resolver', () => {
  let world: DnsWorld;
  before(async () => {
    world = await startDnsWorld();
  });
  after(() => world.close());

  test('repeated and concurrent checks reach the server once per question', async () => {
    const cache = new CachedDnsResolver(
      new NodeDnsResolver({ servers: [world.servers], timeoutMs: 200, tries: 2 }),
      new SystemClock(),
    );
    const before = world.queries;
    const results = await Promise.all(Array.from({ length: 10 }, () => checkDns('a-only.test', cache)));
    for (const result of results) assert.equal(result.outcome, 'implicit_mx');
    assert.equal(world.queries - before, 3, 'MX, A and AAAA once each');
    assert.equal((await checkDns('a-only.test', cache)).outcome, 'implicit_mx');
    assert.equal((await checkDns('nxdomain.test', cache)).outcome, 'nxdomain');
    assert.equal((await checkDns('nxdomain.test', cache)).outcome, 'nxdomain');
    assert.equal(world.queries - before, 4, 'the negative answer is cached too');
  });

  test('a black hole is asked once, then its timeout is remembered', async () => {
    const cache = new CachedDnsResolver(
      new NodeDnsResolver({ servers: [world.servers], tries: 1, deadlineMs: 200 }),
      new SystemClock(),
    );
    const before = world.queries;
    const first = await checkDns('blackhole.test', cache);
    const second = await checkDns('blackhole.test', cache);
    assert.deepEqual(
      [first, second].map((r) => r.outcome === 'error' && r.failure),
      ['timeout', 'timeout'],
    );
    assert.equal(world.queries - before, 1);
  });
});
