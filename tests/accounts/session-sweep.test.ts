/**
 * The session sweep on a real SQLite store: sessions past their end are deleted, live ones stay,
 * and the removal is logged with a count (never a token or its hash).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sessionSweepTask } from '../../src/accounts/session-sweep.ts';
import { openStore } from '../../src/adapters/store/open-store.ts';

test('the sweep deletes expired sessions, keeps live ones, and logs only how many', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-sweep-'));
  const store = await openStore({ dataDir });
  try {
    const account = await store.createAccount({ name: 'Swept', plan: 'free' });
    const user = await store.users.createUser({
      accountId: account.id,
      email: 'a@example.com',
      passwordHash: 'h',
    });
    assert.ok(user !== null);
    const session = (token: string, expiresAt: string) =>
      store.users.createSession({
        userId: user.id,
        tokenHash: token,
        createdAt: expiresAt,
        lastSeenAt: expiresAt,
        expiresAt,
      });
    await session('expired-1', '2026-10-01T00:00:00.000Z');
    await session('expired-2', '2026-11-25T23:59:59.999Z');
    await session('live', '2026-11-26T00:00:00.001Z');

    const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const task = sessionSweepTask({
      users: store.users,
      now: () => new Date('2026-11-26T00:00:00.000Z'),
      log: (_level, message, fields) => logged.push({ message, fields }),
    });
    assert.equal(task.runAtStart, true);
    await task.run();
    assert.equal(await store.users.findSessionByHash('expired-1'), null);
    assert.equal(await store.users.findSessionByHash('expired-2'), null);
    assert.ok((await store.users.findSessionByHash('live')) !== null);
    assert.deepEqual(logged, [{ message: 'expired sessions removed', fields: { removed: 2 } }]);

    await task.run();
    assert.equal(logged.length, 1, 'nothing to remove: nothing logged');
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('the sweep deletes emailed links nobody followed in time, and keeps live ones', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-sweep-'));
  const store = await openStore({ dataDir });
  try {
    const account = await store.createAccount({ name: 'Swept links', plan: 'free' });
    const user = await store.users.createUser({
      accountId: account.id,
      email: 'b@example.com',
      passwordHash: 'h',
    });
    assert.ok(user !== null);
    const link = (tokenHash: string, purpose: 'confirm_email' | 'reset_password', expiresAt: string) =>
      store.users.createUserToken({ userId: user.id, purpose, tokenHash, createdAt: expiresAt, expiresAt });
    await link('stale', 'reset_password', '2026-11-25T00:00:00.000Z');
    await link('live', 'confirm_email', '2026-11-27T00:00:00.000Z');
    const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const now = '2026-11-26T00:00:00.000Z';
    await sessionSweepTask({
      users: store.users,
      now: () => new Date(now),
      log: (_level, message, fields) => logged.push({ message, fields }),
    }).run();
    assert.deepEqual(logged, [{ message: 'expired emailed links removed', fields: { removed: 1 } }]);
    // The stale one is gone (a later take finds nothing even before its expiry); the live one works.
    assert.equal(
      await store.users.takeUserToken('stale', 'reset_password', '2026-01-01T00:00:00.000Z'),
      null,
    );
    assert.equal(await store.users.takeUserToken('live', 'confirm_email', now), user.id);
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
