/**
 * ResolverHealth and HealthCheckedDnsResolver on a scripted resolver and a hand-driven clock: the
 * control verdict, its lifetime, one check at a time, early re-checks, warnings once per change,
 * and what a judged failure becomes (ours, the domain's, or a believed NXDOMAIN), also through the
 * cache and the DNS stage.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CachedDnsResolver } from '../../../src/adapters/dns/cached-resolver.ts';
import { HealthCheckedDnsResolver } from '../../../src/adapters/dns/health-checked-resolver.ts';
import { ResolverHealth, type ResolverHealthOptions } from '../../../src/adapters/dns/resolver-health.ts';
import { checkDns } from '../../../src/verification/checks/dns.ts';
import type { Clock, DnsAnswer, DnsResolver } from '../../../src/verification/ports.ts';
import type { MxRecord } from '../../../src/verification/report.ts';

class FakeClock implements Clock {
  ms = 1_000;
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

type Answer = DnsAnswer<unknown>;
const MX_OK: Answer = {
  kind: 'ok',
  records: [{ exchange: 'mx.example.test', priority: 10 }],
  ttlSeconds: 300,
};
const NXDOMAIN: Answer = { kind: 'nxdomain', ttlSeconds: 300 };
const SERVFAIL: Answer = { kind: 'error', failure: 'servfail', retry: true };

/** Answers MX for the control names as `controls` says, everything else from `answers` (NXDOMAIN by default). */
class ScriptedResolver implements DnsResolver {
  readonly calls: string[] = [];
  controls: Answer = MX_OK;
  /** Per control name, over `controls`. */
  controlByName = new Map<string, Answer>();
  answers = new Map<string, Answer>();
  hold: Promise<void> | undefined;

  async #answer(key: string, control: boolean): Promise<never> {
    this.calls.push(key);
    if (!control) return (this.answers.get(key) ?? NXDOMAIN) as never;
    if (this.hold !== undefined) await this.hold;
    return (this.controlByName.get(key) ?? this.controls) as never;
  }
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    return this.#answer(`MX ${domain}`, domain.startsWith('control'));
  }
  resolveA(host: string): Promise<DnsAnswer<string[]>> {
    return this.#answer(`A ${host}`, false);
  }
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>> {
    return this.#answer(`AAAA ${host}`, false);
  }
  controlQueries(): number {
    return this.calls.filter((call) => call.startsWith('MX control')).length;
  }
}

function setup(options: Partial<ResolverHealthOptions> = {}) {
  const clock = new FakeClock();
  const inner = new ScriptedResolver();
  const warnings: string[] = [];
  const health = new ResolverHealth(inner, clock, {
    controlNames: ['control-a.test', 'control-b.test'],
    verdictTtlMs: 30_000,
    warn: (message) => warnings.push(message),
    ...options,
  });
  const resolver = new HealthCheckedDnsResolver(inner, health);
  return { clock, inner, warnings, health, resolver };
}

describe('ResolverHealth', () => {
  test('healthy while one control name answers with MX; asked in turn, to the first that answers', async () => {
    const { clock, inner, health } = setup();
    assert.equal(await health.healthy(), true);
    assert.equal(inner.controlQueries(), 1, 'the first answered: one query');
    inner.controlByName.set('MX control-a.test', NXDOMAIN);
    clock.advance(30_000);
    assert.equal(await health.healthy(), true);
    assert.equal(inner.controlQueries(), 3);
  });

  test('broken when no control name answers; the verdict is cached for its lifetime, then re-made', async () => {
    const { clock, inner, health, warnings } = setup();
    inner.controls = NXDOMAIN;
    assert.equal(await health.healthy(), false);
    clock.advance(29_000);
    assert.equal(await health.healthy(), false);
    assert.equal(inner.controlQueries(), 2, 'cached');
    inner.controls = MX_OK;
    clock.advance(1_000);
    assert.equal(await health.healthy(), true);
    assert.equal(inner.controlQueries(), 3);
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(warnings[0]!, /control queries \(control-a\.test: nxdomain, control-b\.test: nxdomain\)/);
    assert.match(warnings[1]!, /again/);
  });

  test('one check at a time: concurrent callers share it', async () => {
    const { inner, health } = setup();
    let release!: () => void;
    inner.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pending = [health.healthy(), health.healthy(), health.healthy()];
    release();
    assert.deepEqual(await Promise.all(pending), [true, true, true]);
    assert.equal(inner.controlQueries(), 1);
  });

  test('warns once per change, not per check or per lookup', async () => {
    const { clock, inner, health, warnings, resolver } = setup();
    inner.controls = SERVFAIL;
    for (let i = 0; i < 5; i++) {
      await resolver.resolveMx(`gone${i}.test`);
      clock.advance(31_000);
    }
    assert.ok(inner.controlQueries() >= 8, 'checked again each time the verdict lapsed');
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /servfail/);
    assert.equal(await health.healthy(), false);
  });

  test('an NXDOMAIN stands only when a check made after its lookup vouches for it (a resolver that just broke)', async () => {
    const { clock, inner, resolver } = setup();
    assert.equal((await resolver.resolveMx('gone.test')).kind, 'nxdomain');
    assert.equal(inner.controlQueries(), 1);
    inner.controls = NXDOMAIN;
    clock.advance(100);
    // A healthy verdict 100 ms old cannot vouch for a lookup sent after it.
    assert.deepEqual(await resolver.resolveMx('gmail.example'), {
      kind: 'error',
      failure: 'unconfirmed_nxdomain',
      retry: true,
      ours: true,
    });
    assert.equal(inner.controlQueries(), 3);
  });

  test('concurrent NXDOMAINs share one check; SERVFAILs are judged by the cached verdict', async () => {
    const { clock, inner, resolver } = setup();
    let release!: () => void;
    inner.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pending = Array.from({ length: 5 }, (_, i) => resolver.resolveMx(`gone${i}.test`));
    release();
    for (const answer of await Promise.all(pending)) assert.equal(answer.kind, 'nxdomain');
    assert.equal(inner.controlQueries(), 1);
    inner.answers.set('MX live.test', MX_OK);
    for (let i = 0; i < 10; i++) {
      clock.advance(500);
      inner.answers.set(`MX zone${i}.test`, SERVFAIL);
      assert.deepEqual(await resolver.resolveMx(`zone${i}.test`), { ...SERVFAIL, ours: false });
      await resolver.resolveMx('live.test');
    }
    assert.equal(inner.controlQueries(), 1, 'no re-check while answers keep coming');
  });

  test('a healthy verdict is re-made early once SERVFAILs pile up after it', async () => {
    const { clock, inner, resolver } = setup();
    inner.answers.set('MX zone1.test', SERVFAIL);
    inner.answers.set('MX zone2.test', SERVFAIL);
    assert.deepEqual(await resolver.resolveMx('zone1.test'), { ...SERVFAIL, ours: false });
    inner.controls = SERVFAIL;
    clock.advance(3_000);
    assert.deepEqual(await resolver.resolveMx('zone1.test'), { ...SERVFAIL, ours: false });
    assert.deepEqual(await resolver.resolveMx('zone2.test'), { ...SERVFAIL, ours: true });
  });

  test('a broken verdict is re-made early once the resolver answers something again', async () => {
    const { clock, inner, resolver, warnings } = setup();
    inner.controls = NXDOMAIN;
    assert.equal((await resolver.resolveMx('gone.test')).kind, 'error');
    inner.controls = MX_OK;
    inner.answers.set('MX live.test', MX_OK);
    clock.advance(2_500);
    assert.equal((await resolver.resolveMx('live.test')).kind, 'ok');
    assert.equal((await resolver.resolveMx('gone.test')).kind, 'nxdomain');
    assert.equal(warnings.length, 2);
  });

  test('readiness: ok, degraded while broken, and a slow check does not hold /readyz', async () => {
    const { health } = setup();
    assert.equal(await health.readiness(), 'ok');
    const { inner: brokenInner, health: broken } = setup();
    brokenInner.controls = NXDOMAIN;
    assert.equal(await broken.readiness(), 'degraded');
    const { inner: slowInner, health: slow } = setup({ readinessWaitMs: 20 });
    let release!: () => void;
    slowInner.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    slowInner.controls = NXDOMAIN;
    assert.equal(await slow.readiness(), 'ok', 'no verdict yet: the last known (none) stands');
    release();
    assert.equal(await slow.healthy(), false, 'the check went on and settled');
    assert.equal(await slow.readiness(), 'degraded');
  });

  test('no control names: the check is off, answers are taken as given, nothing is asked', async () => {
    const { inner, resolver, health } = setup({ controlNames: [] });
    assert.equal(health.enabled, false);
    assert.equal((await resolver.resolveMx('gone.test')).kind, 'nxdomain');
    inner.answers.set('MX broken.test', SERVFAIL);
    assert.deepEqual(await resolver.resolveMx('broken.test'), { ...SERVFAIL, ours: false });
    assert.equal(await health.readiness(), 'ok');
    assert.equal(inner.controlQueries(), 0);
  });
});

describe('HealthCheckedDnsResolver', () => {
  test('healthy resolver: NXDOMAIN stands, a SERVFAIL is the domain’s, answers pass untouched', async () => {
    const { inner, resolver } = setup();
    inner.answers.set('MX broken-zone.test', SERVFAIL);
    inner.answers.set('MX live.test', MX_OK);
    assert.deepEqual(await resolver.resolveMx('gone.test'), NXDOMAIN);
    assert.deepEqual(await resolver.resolveMx('broken-zone.test'), { ...SERVFAIL, ours: false });
    assert.equal(await resolver.resolveMx('live.test'), MX_OK);
  });

  test('broken resolver: NXDOMAIN and SERVFAIL are ours; answers asked no control', async () => {
    const { inner, resolver } = setup();
    inner.controls = NXDOMAIN;
    inner.answers.set('A broken-zone.test', SERVFAIL);
    inner.answers.set('AAAA live.test', { kind: 'nodata', ttlSeconds: 60 });
    assert.deepEqual(await resolver.resolveAaaa('live.test'), { kind: 'nodata', ttlSeconds: 60 });
    assert.equal(inner.controlQueries(), 0);
    assert.deepEqual(await resolver.resolveMx('gmail.example'), {
      kind: 'error',
      failure: 'unconfirmed_nxdomain',
      retry: true,
      ours: true,
    });
    assert.deepEqual(await resolver.resolveA('broken-zone.test'), { ...SERVFAIL, ours: true });
  });

  test('under the cache: a made-up NXDOMAIN is kept only as a brief failure, then asked again', async () => {
    const { clock, inner, resolver } = setup({ verdictTtlMs: 5_000 });
    const cached = new CachedDnsResolver(resolver, clock, { errorTtlSeconds: 15, minNegativeTtlSeconds: 60 });
    inner.controls = NXDOMAIN;
    assert.equal((await cached.resolveMx('gmail.example')).kind, 'error');
    // The resolver heals: after the failure's short lifetime the name is asked again and found.
    inner.controls = MX_OK;
    inner.answers.set('MX gmail.example', MX_OK);
    clock.advance(16_000);
    assert.equal((await cached.resolveMx('gmail.example')).kind, 'ok');
  });

  test('the DNS stage keeps whose failure it was', async () => {
    const { inner, resolver } = setup();
    inner.answers.set('MX broken-zone.test', SERVFAIL);
    assert.deepEqual(await checkDns('broken-zone.test', resolver), {
      outcome: 'error',
      failure: 'servfail',
      retry: true,
      ours: false,
    });
    assert.deepEqual(await checkDns('gone.test', resolver), { outcome: 'nxdomain' });
    const { inner: brokenInner, resolver: broken } = setup();
    brokenInner.controls = SERVFAIL;
    assert.deepEqual(await checkDns('gone.test', broken), {
      outcome: 'error',
      failure: 'unconfirmed_nxdomain',
      retry: true,
      ours: true,
    });
  });
});
