/**
 * POST /api/v1/domains/check through the real app (SQLite store, the container's wiring) on the
 * sender test world: authentication, hostile bodies answered with the documented 4xx before any
 * charge, one verification charged per check (a cached report too), refusal when the quota is used
 * up, the per-domain cache, and the per-account bound on checks at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DomainCheckService } from '../../src/sender-checks/domain-check-service.ts';
import type { DomainReport } from '../../src/sender-checks/run-checks.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { DBL, DNSBL, type SenderWorld, startSenderWorld } from './sender-world.ts';

let world: SenderWorld;
let t: TestApp;
before(async () => {
  world = await startSenderWorld();
  t = await testApp({
    quota: 3,
    rate: 1000,
    env: {
      MAILVET_DNS_SERVERS: world.dns.servers,
      MAILVET_SMTP_PORT: String(world.smtpPort),
      MAILVET_SMTP_ALLOW_PRIVATE: 'true',
      MAILVET_DNSBL_ZONES: DNSBL,
      MAILVET_DNSBL_DOMAIN_ZONES: DBL,
    },
  });
});
after(async () => {
  await t?.close();
  await world?.close();
});

const check = (payload: unknown, headers = t.auth()) =>
  t.app.inject({ method: 'POST', url: '/api/v1/domains/check', headers, payload: payload as object });

describe('POST /api/v1/domains/check', () => {
  it('needs a key or a session', async () => {
    const response = await check({ domain: 'nomx.sender.test' }, {} as { authorization: string });
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().code, 'unauthorized');
    assert.equal(response.headers['www-authenticate'], 'Bearer');
  });

  it('answers hostile bodies with the documented 4xx and charges nothing', async () => {
    const cases: Array<[unknown, number, string, string?]> = [
      [['nomx.sender.test'], 400, 'bad_request'],
      [{}, 422, 'validation_failed', 'domain'],
      [{ domain: 123 }, 422, 'validation_failed', 'domain'],
      [{ domain: '   ' }, 422, 'validation_failed', 'domain'],
      [{ domain: '127.0.0.1' }, 422, 'validation_failed', 'domain'],
      [{ domain: '[::1]' }, 422, 'validation_failed', 'domain'],
      [{ domain: 'localhost' }, 422, 'validation_failed', 'domain'],
      [{ domain: 'exa mple.com' }, 422, 'validation_failed', 'domain'],
      [{ domain: '-bad.example.com' }, 422, 'validation_failed', 'domain'],
      [{ domain: `${'a'.repeat(64)}.com` }, 422, 'validation_failed', 'domain'],
      [{ domain: 'x'.repeat(2000) }, 422, 'validation_failed', 'domain'],
      [{ domain: 'example.com', dkim_selectors: 'google' }, 422, 'validation_failed', 'dkim_selectors'],
      [
        { domain: 'example.com', dkim_selectors: Array.from({ length: 11 }, (_, i) => `s${i}`) },
        422,
        'validation_failed',
        'dkim_selectors',
      ],
      [{ domain: 'example.com', dkim_selectors: ['../etc'] }, 422, 'validation_failed', 'dkim_selectors[0]'],
      [
        { domain: 'example.com', dkim_selectors: ['ok', 'a b'] },
        422,
        'validation_failed',
        'dkim_selectors[1]',
      ],
      [{ domain: 'example.com', dkim_selectors: [7] }, 422, 'validation_failed', 'dkim_selectors[0]'],
    ];
    for (const [payload, status, code, field] of cases) {
      const response = await check(payload);
      assert.equal(response.statusCode, status, JSON.stringify(payload).slice(0, 80));
      const body = response.json();
      assert.equal(body.code, code);
      if (field !== undefined)
        assert.equal(body.errors[0]?.field, field, JSON.stringify(payload).slice(0, 80));
    }
    assert.equal((await t.usage()).verifications, 0);
  });

  it('charges one verification, reuses the report for a few minutes (still charged), and refuses past the quota', async () => {
    const first = await check({ domain: 'NoMX.sender.test.' });
    assert.equal(first.statusCode, 200, first.body);
    const report = first.json();
    assert.equal(report.domain, 'nomx.sender.test');
    assert.equal(report.cached, false);
    assert.equal(report.complete, true);
    assert.equal(report.grade, 'D');
    assert.ok(report.findings.some((item: { code: string }) => item.code === 'mx_missing'));
    assert.equal(first.headers['x-quota-remaining'], '2');
    assert.equal((await t.usage()).verifications, 1);

    const again = await check({ domain: 'nomx.sender.test' });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().cached, true);
    assert.equal(again.json().checked_at, report.checked_at);
    assert.equal((await t.usage()).verifications, 2);

    // Other selectors are another question: checked afresh.
    const other = await check({ domain: 'nomx.sender.test', dkim_selectors: ['google'] });
    assert.equal(other.statusCode, 200);
    assert.equal(other.json().cached, false);
    assert.deepEqual(other.json().dkim_selectors, ['google']);
    assert.equal((await t.usage()).verifications, 3);

    const refused = await check({ domain: 'nomx.sender.test' });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().code, 'quota_exceeded');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal((await t.usage()).verifications, 3);
  });

  it('never reuses an incomplete report (a lookup failed)', async () => {
    const { key } = await t.addKey({ quota: 5 });
    for (let round = 0; round < 2; round++) {
      const response = await check({ domain: 'broken.sender.test' }, t.auth(key));
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual([response.json().complete, response.json().cached], [false, false]);
    }
  });

  it('checks an internationalized domain in its A-label form, and holds no account data', async () => {
    const { key } = await t.addKey({ quota: 5 });
    const response = await check({ domain: 'bücher.sender.test' }, t.auth(key));
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.domain, 'xn--bcher-kva.sender.test');
    const text = JSON.stringify(body);
    assert.ok(!text.includes(t.keyRecord.accountId) && !text.includes(key));
  });
});

describe('checks at once per account', () => {
  it('refuses a check past the bound until one ends, and never charges the refused one', async () => {
    const gates: Array<() => void> = [];
    const report = {
      domain: 'x.test',
      findings: [],
      counts: { pass: 0, warn: 0, fail: 0, info: 0 },
    } as unknown as DomainReport;
    const service = new DomainCheckService({
      run: () => new Promise<DomainReport>((resolve) => gates.push(() => resolve(report))),
      usage: t.store,
      cacheTtlSeconds: 0,
      perAccount: 2,
    });
    const { record } = await t.addKey({ quota: 10 });
    const caller = {
      accountId: record.accountId,
      keyId: record.id,
      limits: { monthlyVerifications: 10, monthlyBulkRequests: 10, rateLimitPerSecond: 10 },
      caps: { monthlyQuota: null, bulkQuota: null, rateLimit: null },
    } as unknown as Parameters<DomainCheckService['check']>[0];
    const one = service.check(caller, 'a.test', []);
    const two = service.check(caller, 'b.test', []);
    while (gates.length < 2) await new Promise((resolve) => setImmediate(resolve));
    const three = await service.check(caller, 'c.test', []);
    assert.deepEqual(three, { kind: 'busy', running: 2 });
    gates[0]!();
    assert.equal((await one).kind, 'ok');
    const four = service.check(caller, 'd.test', []);
    while (gates.length < 3) await new Promise((resolve) => setImmediate(resolve));
    gates[1]!();
    gates[2]!();
    assert.equal((await two).kind, 'ok');
    assert.equal((await four).kind, 'ok');
    assert.equal((await t.usage(record.id)).verifications, 3);
  });

  it('holds the bound for checks that arrive together, before any has been charged', async () => {
    const gates: Array<() => void> = [];
    const report = { domain: 'x.test', findings: [], counts: { pass: 0, warn: 0, fail: 0, info: 0 } };
    const service = new DomainCheckService({
      run: () => new Promise<DomainReport>((resolve) => gates.push(() => resolve(report as never))),
      usage: t.store,
      cacheTtlSeconds: 0,
      perAccount: 2,
    });
    const { record } = await t.addKey({ quota: 10 });
    const caller = {
      accountId: record.accountId,
      keyId: record.id,
      limits: { monthlyVerifications: 10, monthlyBulkRequests: 10, rateLimitPerSecond: 10 },
      caps: { monthlyQuota: null, bulkQuota: null, rateLimit: null },
    } as unknown as Parameters<DomainCheckService['check']>[0];
    // All three in the same turn: none has reached its charge (an await) when the next arrives.
    const checks = ['a.test', 'b.test', 'c.test'].map((domain) => service.check(caller, domain, []));
    while (gates.length < 2) await new Promise((resolve) => setImmediate(resolve));
    for (const open of gates) open();
    const kinds = (await Promise.all(checks)).map((outcome) => outcome.kind);
    assert.deepEqual(kinds, ['ok', 'ok', 'busy']);
    assert.equal((await t.usage(record.id)).verifications, 2);
  });
});
