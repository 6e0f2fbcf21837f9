/**
 * POST /api/v1/verify, security: the shared 401 cases, keys that only look like a real one, the
 * constant-time comparison, keys and addresses kept out of logs, and no internal detail in a 500.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateApiKey, hashApiKey, hashesEqual } from '../../../../src/accounts/api-keys.ts';
import { BUILT_IN_PLANS } from '../../../../src/accounts/plans.ts';
import type { ApiKeyRecord } from '../../../../src/accounts/ports.ts';
import { SystemClock } from '../../../../src/adapters/clock/system.ts';
import { MemoryRateLimiter } from '../../../../src/adapters/rate-limit/memory.ts';
import { buildApp } from '../../../../src/http/app.ts';
import type { Store } from '../../../../src/store.ts';
import { testApp } from '../../../helpers/app.ts';
import { authCases } from '../../auth-cases.ts';
import { assertError, post, VERIFY } from '../../expect.ts';
import { LogCapture } from '../../log-capture.ts';

describe('shared auth cases', () => authCases(VERIFY, { email: 'jane@multi-mx.test' }));

describe('keys', () => {
  test('a key sharing the display prefix of a real key is refused', async () => {
    const t = await testApp({ rate: 1000 });
    try {
      const prefix = t.key.slice(0, 14);
      const lookalike = prefix + generateApiKey().key.slice(14);
      assert.equal(lookalike.length, t.key.length);
      assertError(
        await post(t.app, VERIFY, { email: 'a@multi-mx.test' }, t.auth(lookalike)),
        401,
        'unauthorized',
      );
    } finally {
      await t.close();
    }
  });

  test("a key whose hash shares a prefix with another key's hash is refused", async () => {
    const t = await testApp({ rate: 1000 });
    try {
      const target = t.keyRecord.keyHash.slice(0, 2);
      let candidate = generateApiKey();
      while (!candidate.keyHash.startsWith(target)) candidate = generateApiKey();
      assertError(
        await post(t.app, VERIFY, { email: 'a@multi-mx.test' }, t.auth(candidate.key)),
        401,
        'unauthorized',
      );
    } finally {
      await t.close();
    }
  });

  test('the stored hash is confirmed, not trusted: a store answering with another key is refused', async () => {
    // A store whose lookup is loose (say, by prefix) hands back another key's record: the
    // constant-time comparison of the whole hash must still refuse.
    const other = generateApiKey();
    const record: ApiKeyRecord = {
      id: 'key_other',
      accountId: 'acct',
      kind: 'api',
      name: 'other',
      keyHash: other.keyHash,
      displayPrefix: other.displayPrefix,
      caps: { monthlyQuota: null, bulkQuota: null, rateLimit: null },
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    };
    const looked: string[] = [];
    const app = buildApp({
      store: {
        findApiKeyByHash: async (hash: string) => {
          looked.push(hash);
          const account = { id: 'acct', name: 'Other', plan: 'free', createdAt: record.createdAt };
          return {
            key: record,
            account: { ...account, monthlyQuota: null, bulkQuota: null, rateLimit: null },
          };
        },
        ping: async () => {},
      } as unknown as Store,
      service: {
        verifyOne: async () => assert.fail('must not verify'),
        verifyBulk: async () => assert.fail('must not verify'),
        quotaState: async () => assert.fail('no quota for a refused key'),
      },
      rateLimiter: new MemoryRateLimiter(new SystemClock()),
      plans: BUILT_IN_PLANS,
    });
    try {
      const presented = generateApiKey().key;
      const response = await post(
        app,
        VERIFY,
        { email: 'a@multi-mx.test' },
        { authorization: `Bearer ${presented}` },
      );
      assertError(response, 401, 'unauthorized');
      assert.deepEqual(looked, [hashApiKey(presented)], 'looked up by the SHA-256 of the key');
    } finally {
      await app.close();
    }
  });

  test('hashesEqual: equal, different, different length, empty, not hex', () => {
    const a = hashApiKey('mv_live_a');
    assert.equal(hashesEqual(a, a), true);
    assert.equal(hashesEqual(a, hashApiKey('mv_live_b')), false);
    assert.equal(hashesEqual(a, a.slice(0, 62)), false);
    assert.equal(hashesEqual('', ''), false);
    assert.equal(hashesEqual(a, 'zz'.repeat(32)), false);
    assert.equal(hashesEqual('zz'.repeat(32), 'zz'.repeat(32)), false, 'two equal strings that are not hex');
    const flip = (c: string) => (c === '0' ? '1' : '0');
    assert.equal(hashesEqual(a, `${flip(a[0]!)}${a.slice(1)}`), false, 'first digit differs');
    assert.equal(hashesEqual(a, `${a.slice(0, 63)}${flip(a[63]!)}`), false, 'last digit differs');
  });
});

describe('logs', () => {
  test('keys and their hashes never appear in logs, even at trace level', async () => {
    const logs = new LogCapture();
    const t = await testApp({ rate: 1000, logger: { level: 'trace', stream: logs } });
    try {
      const revoked = await t.addKey({ rate: 1000 });
      await t.store.revokeApiKey(revoked.record.id);
      await post(t.app, VERIFY, { email: 'jane@multi-mx.test' }, t.auth());
      await post(t.app, VERIFY, '{bad', t.auth());
      await post(t.app, VERIFY, { email: 'jane@multi-mx.test' }, t.auth(revoked.key));
      await post(t.app, VERIFY, { email: 'jane@multi-mx.test' }, { authorization: `Basic ${t.key}` });
      await post(t.app, VERIFY, { email: 'jane@multi-mx.test', key: t.key, apiKey: t.key });
      // One line per request (the request log), and the debug and trace lines beside them.
      assert.ok(logs.lines.length >= 5, 'the requests were logged');
      for (const secret of [
        t.key,
        t.keyRecord.keyHash,
        revoked.key,
        revoked.record.keyHash,
        t.key.slice(8),
      ]) {
        assert.equal(logs.text.includes(secret), false, 'a key or hash leaked into the logs');
      }
    } finally {
      await t.close();
    }
  });

  test('addresses are logged at debug level only', async () => {
    const info = new LogCapture();
    const t = await testApp({ rate: 1000, logger: { level: 'info', stream: info } });
    try {
      await post(t.app, VERIFY, { email: 'private.person@multi-mx.test' }, t.auth());
      await post(t.app, VERIFY, { email: 'private.person@multi-mx.test', extra: 1 }, t.auth());
      await post(t.app, VERIFY, '{"email": "private.person@multi-mx.test"', t.auth());
      assert.ok(info.lines.length >= 3);
      assert.equal(info.text.includes('private.person'), false);
    } finally {
      await t.close();
    }
    const debug = new LogCapture();
    const d = await testApp({ rate: 1000, logger: { level: 'debug', stream: debug } });
    try {
      await post(d.app, VERIFY, { email: 'private.person@multi-mx.test' }, d.auth());
      const entry = debug.entries().find((line) => line.email === 'private.person@multi-mx.test');
      assert.equal(entry?.level, 20, 'logged at debug (20)');
    } finally {
      await d.close();
    }
  });
});

describe('500', () => {
  const secret = 'password=hunter2 at /srv/mailvet/src/secret.ts:42';
  let t: Awaited<ReturnType<typeof testApp>>;
  const logs = new LogCapture();
  before(async () => {
    const failing = {
      verifyOne: async () => {
        throw new Error(secret);
      },
      verifyBulk: async () => {
        throw new TypeError(secret);
      },
      quotaState: async () => ({
        limit: 10,
        remaining: 10,
        resetAt: new Date(Date.UTC(2100, 0, 1)).toISOString(),
        resetSeconds: 1,
      }),
    };
    t = await testApp({ rate: 1000, service: failing, logger: { level: 'info', stream: logs } });
  });
  after(() => t.close());

  test('500 internal_error with no stack or internal message; logged at error level', async () => {
    const response = await post(t.app, VERIFY, { email: 'jane@multi-mx.test' }, t.auth());
    const body = assertError(response, 500, 'internal_error');
    assert.equal(response.body.includes('hunter2'), false);
    assert.equal(response.body.includes('secret.ts'), false);
    assert.equal(response.body.includes('    at '), false);
    assert.equal(body.message, 'An unexpected error occurred');
    const logged = logs.entries().find((entry) => entry.level === 50);
    assert.ok(logged, 'an error-level entry');
    assert.match(JSON.stringify(logged), /hunter2/, 'the detail is in the log instead');
    assert.equal(logged.reqId, response.headers['x-request-id']);
  });

  test('a 500 still carries the rate-limit headers', async () => {
    const response = await post(t.app, VERIFY, { email: 'jane@multi-mx.test' }, t.auth());
    assert.equal(response.statusCode, 500);
    assert.ok(response.headers['ratelimit-limit']);
    assert.equal(response.headers['x-quota-limit'], '10');
  });

  test('bulk: the same', async () => {
    const response = await post(t.app, '/api/v1/verify/bulk', { emails: ['jane@multi-mx.test'] }, t.auth());
    assertError(response, 500, 'internal_error');
    assert.equal(response.body.includes('hunter2'), false);
  });
});
