/**
 * The Mailchimp client's own rules, with a scripted transport (the emulator covers the real
 * protocol): Retry-After read in seconds or as a date and capped; the wait is never shorter than it
 * says; attempts run out into a MailchimpError naming the last answer; an answer that is not JSON
 * is a MailchimpError, not a crash; a 401 is never retried.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryInFlightLimiter } from '../../src/adapters/integrations/memory-in-flight.ts';
import {
  MailchimpAuthError,
  MailchimpClient,
  MailchimpError,
  retryAfterMs,
} from '../../src/integrations/mailchimp/client.ts';

function clientAnswering(answers: Array<() => Response>, waits: number[] = []) {
  let calls = 0;
  const client = new MailchimpClient({
    credential: { kind: 'api_key', apiKey: `${'a'.repeat(32)}-us1`, dc: 'us1' },
    baseUrlTemplate: 'https://{dc}.api.mailchimp.com',
    limiter: new MemoryInFlightLimiter(),
    limiterKey: 'test',
    fetch: (async () => answers[Math.min(calls++, answers.length - 1)]!()) as typeof fetch,
    attempts: 3,
    baseDelayMs: 100,
    random: () => 0,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { client, calls: () => calls };
}

const problem =
  (status: number, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify({ status, title: 'Nope', detail: 'details' }), {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    });

test('Retry-After: seconds or an HTTP date, capped at five minutes; garbage is ignored', () => {
  const now = Date.parse('2026-11-26T10:00:00Z');
  assert.equal(retryAfterMs('2', now), 2000);
  assert.equal(retryAfterMs('Thu, 26 Nov 2026 10:00:30 GMT', now), 30_000);
  assert.equal(retryAfterMs('86400', now), 300_000);
  assert.equal(retryAfterMs('soon', now), undefined);
  assert.equal(retryAfterMs(null, now), undefined);
  assert.equal(retryAfterMs('-5', now), 0);
});

test('a 429 waits at least Retry-After; attempts run out into an error naming the last answer', async () => {
  const waits: number[] = [];
  const { client, calls } = clientAnswering([problem(429, { 'retry-after': '3' })], waits);
  const error = await client.get('/').catch((caught: unknown) => caught);
  assert.ok(error instanceof MailchimpError);
  assert.equal(error.status, 429);
  assert.match(error.message, /429 Nope: details \(after 3 attempts\)/);
  assert.equal(calls(), 3);
  assert.deepEqual(waits, [3000, 3000]);
});

test('a 500 then a success: retried with backoff, the answer returned', async () => {
  const waits: number[] = [];
  const { client, calls } = clientAnswering(
    [problem(500), () => new Response(JSON.stringify({ account_name: 'Shop' }), { status: 200 })],
    waits,
  );
  assert.deepEqual(await client.get('/'), { account_name: 'Shop' });
  assert.equal(calls(), 2);
  assert.equal(waits.length, 1);
});

test('401 is not retried; a 2xx that is not JSON is an error, not a crash; a 204 is undefined', async () => {
  const refused = clientAnswering([problem(401)]);
  await assert.rejects(refused.client.get('/'), MailchimpAuthError);
  assert.equal(refused.calls(), 1);
  const garbled = clientAnswering([() => new Response('<html>maintenance</html>', { status: 200 })]);
  await assert.rejects(
    garbled.client.get('/'),
    (error: unknown) => error instanceof MailchimpError && /not JSON|other than JSON/.test(error.message),
  );
  const empty = clientAnswering([() => new Response(null, { status: 204 })]);
  assert.equal(await empty.client.post('/lists/x/members/y/tags', { tags: [] }), undefined);
});

test('a data centre that is not Mailchimp-shaped never reaches a URL', () => {
  assert.throws(
    () =>
      new MailchimpClient({
        credential: { kind: 'api_key', apiKey: 'k', dc: 'evil.example.com/x' },
        baseUrlTemplate: 'https://{dc}.api.mailchimp.com',
        limiter: new MemoryInFlightLimiter(),
        limiterKey: 'x',
        fetch,
      }),
    RangeError,
  );
});
