/**
 * `/metrics` on the API port behind MAILVET_METRICS_TOKEN: the app wired by the composition root
 * (real DNS resolver and cache, real SMTP probe) against the mail world on loopback, scraped before
 * and after real requests, so every counter is checked by how much it moved and with which labels.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices, type Services } from '../../src/container/index.ts';
import { createLogger } from '../../src/container/logger.ts';
import { buildApp } from '../../src/http/app.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';
import { assertError } from './expect.ts';
import { familyOf, samples, sampleValue } from './metrics-scrape.ts';

const TOKEN = 'scrape-token-0123456789abcdef';
const VERIFY = '/api/v1/verify';

/** An app of the composition root on the mail world, a key, and its scrape. */
interface MetricsApp {
  app: FastifyInstance;
  services: Services;
  key: string;
  accountId: string;
  scrape(): Promise<string>;
  verify(email: string, key?: string): Promise<{ statusCode: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

async function metricsApp(world: MailWorld, env: Record<string, string> = {}): Promise<MetricsApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-metrics-'));
  const config = loadConfig({
    MAILVET_DATA_DIR: dataDir,
    // Control queries would go to the world's DNS too; off, so every query counted is a probe's.
    MAILVET_DNS_CONTROL_NAMES: '',
    MAILVET_RESULT_TTL: '3600',
    ...world.env,
    ...env,
  });
  const services = await createServices(config, { log: createLogger(false) });
  const app = buildApp({ ...services, metricsToken: config.MAILVET_METRICS_TOKEN }, { logger: false });
  await app.ready();
  const issued = await issueApiKey(services.store, { name: 'metrics', plan: 'free', rateLimit: 1000 });
  const verify = async (email: string, key = issued.key) => {
    const response = await app.inject({
      method: 'POST',
      url: VERIFY,
      headers: { authorization: `Bearer ${key}` },
      payload: { email },
    });
    return { statusCode: response.statusCode, body: response.json() as Record<string, unknown> };
  };
  return {
    app,
    services,
    key: issued.key,
    accountId: issued.record.accountId,
    verify,
    scrape: async () => {
      const response = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.body;
    },
    close: async () => {
      await app.close();
      await services.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

let world: MailWorld;
before(async () => {
  world = await startMailWorld();
  // An MX host with a provider's name, on the accepting host: its label must be "google".
  world.dns.zones['googlemx.test'] = { mx: [{ exchange: 'aspmx.l.google.com', priority: 5 }] };
  world.dns.zones['aspmx.l.google.com'] = { a: [world.hosts['accept-known'].host] };
});
after(() => world.close());

describe('/metrics on the API port (MAILVET_METRICS_TOKEN)', () => {
  let t: MetricsApp;
  before(async () => {
    t = await metricsApp(world, { MAILVET_METRICS_TOKEN: TOKEN });
  });
  after(() => t.close());

  test('no token: 401 with the API error body; a wrong token: 401 invalid_token', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    assertError(none, 401, 'unauthorized');
    assert.equal(none.headers['www-authenticate'], 'Bearer');
    assert.equal(none.body.includes('mailvet_'), false);
    for (const authorization of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Basic ${TOKEN}`,
      t.key,
    ]) {
      const wrong = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      assertError(wrong, 401, 'unauthorized');
      assert.equal(wrong.body.includes('mailvet_'), false);
    }
    // An API key is not the metrics token.
    const withKey = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${t.key}` },
    });
    assertError(withKey, 401, 'unauthorized');
    assert.equal(withKey.headers['www-authenticate'], 'Bearer error="invalid_token"');
  });

  test('the token: Prometheus text with every family, its HELP and TYPE, and Node defaults', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `bearer ${TOKEN}` },
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const families: Record<string, string> = {
      mailvet_http_requests_total: 'counter',
      mailvet_http_request_duration_seconds: 'histogram',
      mailvet_verifications_total: 'counter',
      mailvet_result_cache_hits_total: 'counter',
      mailvet_result_cache_misses_total: 'counter',
      mailvet_dns_queries_total: 'counter',
      mailvet_dns_cache_hits_total: 'counter',
      mailvet_dns_cache_misses_total: 'counter',
      mailvet_smtp_sessions_opened_total: 'counter',
      mailvet_smtp_connect_failures_total: 'counter',
      mailvet_smtp_replies_total: 'counter',
      mailvet_list_rows_processed_total: 'counter',
      mailvet_limit_refusals_total: 'counter',
      mailvet_queue_jobs: 'gauge',
      process_cpu_user_seconds_total: 'counter',
      nodejs_heap_size_used_bytes: 'gauge',
    };
    for (const [name, type] of Object.entries(families)) {
      const family = familyOf(response.body, name);
      assert.ok(family, `${name} is exposed`);
      assert.equal(family.type, type, `${name} is a ${type}`);
      assert.ok(family.help.length > 10, `${name} says what it counts`);
    }
    // The in-process queue, read at scrape time: nothing queued in this app.
    assert.equal(sampleValue(response.body, 'mailvet_queue_jobs', { state: 'waiting' }), 0);
    assert.ok(
      samples(response.body).some((s) => s.name === 'mailvet_queue_jobs' && s.labels.state === 'active'),
    );
  });

  test('a verification moves its status and reason, the route pattern and the DNS and SMTP counters', async () => {
    const earlier = await t.scrape();
    const { statusCode, body } = await t.verify('alice@accept.test');
    assert.equal(statusCode, 200);
    const afterFirst = await t.scrape();
    const moved = (name: string, labels: Record<string, string> = {}, from = earlier, to = afterFirst) =>
      sampleValue(to, name, labels) - sampleValue(from, name, labels);

    const outcome = { status: String(body.status), reason: String(body.reason) };
    assert.equal(outcome.status, 'VALID');
    assert.equal(moved('mailvet_verifications_total', outcome), 1);
    assert.equal(
      samples(afterFirst)
        .filter((s) => s.name === 'mailvet_verifications_total')
        .reduce((sum, s) => sum + s.value, 0) -
        samples(earlier)
          .filter((s) => s.name === 'mailvet_verifications_total')
          .reduce((sum, s) => sum + s.value, 0),
      1,
      'one verification in all',
    );
    const route = { method: 'POST', route: VERIFY, status_code: '200' };
    assert.equal(moved('mailvet_http_requests_total', route), 1);
    assert.equal(moved('mailvet_http_request_duration_seconds_count', { method: 'POST', route: VERIFY }), 1);
    assert.equal(moved('mailvet_result_cache_misses_total'), 1);
    // The domain's MX, then its host's A and AAAA: each asked of the servers once.
    assert.equal(moved('mailvet_dns_cache_misses_total', { question: 'mx' }), 1);
    assert.equal(moved('mailvet_dns_queries_total', { question: 'mx', outcome: 'ok' }), 1);
    assert.ok(moved('mailvet_dns_queries_total', { question: 'a', outcome: 'ok' }) >= 1);
    assert.equal(moved('mailvet_smtp_sessions_opened_total', { provider: 'other' }), 1);
    assert.equal(moved('mailvet_smtp_replies_total', { provider: 'other', class: '2xx' }), 1);

    // Another address at the same domain: the result cache misses, the DNS cache answers.
    const queriesBefore = world.dns.queries;
    const second = await t.verify('bob@accept.test');
    assert.equal(second.statusCode, 200);
    const afterSecond = await t.scrape();
    assert.equal(world.dns.queries, queriesBefore, 'no query reached the DNS server');
    assert.ok(moved('mailvet_dns_cache_hits_total', { question: 'mx' }, afterFirst, afterSecond) >= 1);
    assert.equal(moved('mailvet_dns_cache_misses_total', { question: 'mx' }, afterFirst, afterSecond), 0);
    const queriesMoved = samples(afterSecond)
      .filter((s) => s.name === 'mailvet_dns_queries_total')
      .reduce((sum, s) => sum + s.value, 0);
    const queriesFirst = samples(afterFirst)
      .filter((s) => s.name === 'mailvet_dns_queries_total')
      .reduce((sum, s) => sum + s.value, 0);
    assert.equal(queriesMoved, queriesFirst, 'no DNS query counted either');

    // The same address again: a result cache hit, no verification.
    await t.verify('alice@accept.test');
    const afterThird = await t.scrape();
    assert.equal(moved('mailvet_result_cache_hits_total', {}, afterSecond, afterThird), 1);
    assert.equal(moved('mailvet_verifications_total', outcome, afterSecond, afterThird), 0);
    assert.equal(moved('mailvet_http_requests_total', route, afterSecond, afterThird), 1);
  });

  test('SMTP counters by provider: a recognised MX host, and a dead first MX counted as a connect failure', async () => {
    const earlier = await t.scrape();
    const google = await t.verify('carol@googlemx.test');
    assert.equal(google.statusCode, 200);
    const dead = await t.verify('dave@deadfirst.test');
    assert.equal(dead.statusCode, 200);
    const now = await t.scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      sampleValue(now, name, labels) - sampleValue(earlier, name, labels);
    assert.equal(moved('mailvet_smtp_sessions_opened_total', { provider: 'google' }), 1);
    assert.equal(moved('mailvet_smtp_replies_total', { provider: 'google', class: '2xx' }), 1);
    assert.equal(
      moved('mailvet_smtp_connect_failures_total', { provider: 'other', reason: 'connect_failed' }),
      1,
      'the dead first MX',
    );
    assert.equal(moved('mailvet_smtp_sessions_opened_total', { provider: 'other' }), 1, 'the second MX');
    for (const sample of samples(now).filter((s) => s.name.startsWith('mailvet_smtp_'))) {
      assert.ok(['google', 'other'].includes(sample.labels.provider ?? ''), 'a bounded provider label');
    }
  });

  test('routes are labelled by pattern, never by URL: ids and unknown paths stay out of labels', async () => {
    const earlier = await t.scrape();
    const id = '0195b5b0-aaaa-7bbb-8ccc-0123456789ab';
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/v1/lists/${id}`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    assert.equal(list.statusCode, 404);
    const unknown = await t.app.inject({ method: 'GET', url: '/api/v1/no-such-thing/4242' });
    assert.equal(unknown.statusCode, 404);
    const now = await t.scrape();
    const moved = (labels: Record<string, string>) =>
      sampleValue(now, 'mailvet_http_requests_total', labels) -
      sampleValue(earlier, 'mailvet_http_requests_total', labels);
    assert.equal(moved({ method: 'GET', route: '/api/v1/lists/:id', status_code: '404' }), 1);
    assert.equal(moved({ method: 'GET', route: 'unmatched', status_code: '404' }), 1);
    assert.equal(now.includes(id), false, 'the id is in no label');
    assert.equal(now.includes('4242'), false, 'the unknown path is in no label');
  });

  test('refusals: each 429 for the rate limit, and a used-up quota, counted by kind', async () => {
    const slow = await issueApiKey(t.services.store, { name: 'slow', plan: 'free', rateLimit: 1 });
    const earlier = await t.scrape();
    let limited = 0;
    // A burst of 2 at 1 per second: a few quick requests are refused, however slow the machine.
    for (let i = 0; i < 6; i++) {
      const answer = await t.verify('not an address', slow.key);
      if (answer.statusCode === 429) limited += 1;
    }
    assert.ok(limited >= 1, 'the rate limit refused some');
    const small = await issueApiKey(t.services.store, {
      name: 'small',
      plan: 'free',
      monthlyQuota: 1,
      rateLimit: 1000,
    });
    assert.equal((await t.verify('still not an address', small.key)).statusCode, 200);
    const refused = await t.verify('still not an address either', small.key);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.body.code, 'quota_exceeded');
    const now = await t.scrape();
    const moved = (kind: string) =>
      sampleValue(now, 'mailvet_limit_refusals_total', { kind }) -
      sampleValue(earlier, 'mailvet_limit_refusals_total', { kind });
    assert.equal(moved('rate_limited'), limited);
    assert.equal(moved('quota_exceeded'), 1);
    assert.equal(moved('bulk_quota_exceeded'), 0);
    assert.equal(
      sampleValue(now, 'mailvet_http_requests_total', { method: 'POST', route: VERIFY, status_code: '429' }) -
        sampleValue(earlier, 'mailvet_http_requests_total', {
          method: 'POST',
          route: VERIFY,
          status_code: '429',
        }),
      limited + 1,
    );
  });

  test('two apps in one process keep their own figures (a registry each)', async () => {
    const other = await metricsApp(world, { MAILVET_METRICS_TOKEN: TOKEN });
    try {
      const mineBefore = await t.scrape();
      await other.verify('syntax error here');
      await other.verify('syntax error again');
      const theirs = await other.scrape();
      const mineAfter = await t.scrape();
      const route = { method: 'POST', route: VERIFY, status_code: '200' };
      assert.equal(sampleValue(theirs, 'mailvet_http_requests_total', route), 2);
      assert.equal(
        sampleValue(mineAfter, 'mailvet_http_requests_total', route),
        sampleValue(mineBefore, 'mailvet_http_requests_total', route),
      );
    } finally {
      await other.close();
    }
  });
});

describe('metrics off (neither MAILVET_METRICS_PORT nor MAILVET_METRICS_TOKEN)', () => {
  test('/metrics is a 404 like any unknown route, with or without a bearer', async () => {
    const t = await metricsApp(world);
    try {
      assert.equal(t.services.metrics.enabled, false);
      assert.equal(t.services.metricsExposition, undefined);
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
        const response = await t.app.inject({ method: 'GET', url: '/metrics', headers });
        const body = assertError(response, 404, 'not_found');
        assert.equal(body.message, 'No such endpoint: GET /metrics');
      }
    } finally {
      await t.close();
    }
  });
});
