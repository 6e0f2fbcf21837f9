/**
 * The operators' commands: `accounts create|list|update`, `users create|list|update`, and
 * `keys create --account` / `keys update` making a key's own caps. Run as a user would, through
 * bin/mailvet on a fresh data directory; the results are checked in the store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { authenticate } from '../../src/accounts/users.ts';
import { openStore } from '../../src/adapters/store/open-store.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));

describe('mailvet accounts, users and keys', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailvet-cli-accounts-'));
  });
  after(async () => rm(dataDir, { recursive: true, force: true }));

  const mailvet = (args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, MAILVET_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' } },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
      );
      child.stdin?.end(input);
    });
  const json = async (args: string[], input = '') => {
    const run = await mailvet([...args, '--json'], input);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout);
  };

  test('with no database yet, commands refuse and name where they looked; --init makes it and says where', async () => {
    const file = join(dataDir, 'mailvet.db');
    for (const args of [
      ['keys', 'create', '--name', 'lost'],
      ['keys', 'list'],
      ['accounts', 'create', '--name', 'Lost'],
    ]) {
      const refused = await mailvet(args);
      assert.equal(refused.code, 2, args.join(' '));
      assert.match(refused.stderr, new RegExp(`no database at ${file}.*--init`));
      assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.equal(existsSync(file), false, 'nothing was made');
    const made = await mailvet(['keys', 'create', '--name', 'first', '--init']);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /^mv_live_/);
    assert.match(made.stderr, new RegExp(`in the SQLite database ${file}`));
    assert.equal(existsSync(file), true);
  });

  test('accounts create, list and update set the plan and override its figures', async () => {
    const created = await json([
      'accounts',
      'create',
      '--name',
      'Acme',
      '--plan',
      'starter',
      '--monthly-quota',
      '5000',
    ]);
    assert.deepEqual(
      [created.name, created.plan, created.monthly_quota, created.rate_limit],
      ['Acme', 'starter', 5000, null],
    );
    const listed = await json(['accounts', 'list']);
    assert.ok(listed.some((account: { id: string }) => account.id === created.id));
    const updated = await json([
      'accounts',
      'update',
      created.id,
      '--rate-limit',
      '7',
      '--monthly-quota',
      'none',
      '--plan',
      'pro',
    ]);
    assert.deepEqual([updated.plan, updated.rate_limit, updated.monthly_quota], ['pro', 7, null]);
    const unknown = await mailvet(['accounts', 'update', 'no-such-account', '--plan', 'pro']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no account with id no-such-account/);
    const badPlan = await mailvet(['accounts', 'create', '--name', 'X', '--plan', 'platinum']);
    assert.equal(badPlan.code, 2);
    assert.match(badPlan.stderr, /unknown plan "platinum"/);
  });

  test('users create: a password from standard input, or a one-time one printed; both sign in', async () => {
    const account = await json(['accounts', 'create', '--name', 'People']);
    const given = await json(
      ['users', 'create', '--email', 'Owner@Example.com', '--account', account.id],
      'a long enough password\n',
    );
    assert.deepEqual(
      [given.email, given.account_id, given.password],
      ['owner@example.com', account.id, undefined],
    );
    const made = await json(['users', 'create', '--email', 'second@example.com', '--account', account.id]);
    assert.match(made.password, /^[A-Za-z0-9_-]{20}$/);
    const again = await mailvet(
      ['users', 'create', '--email', 'owner@example.com', '--account', account.id],
      'another long password',
    );
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already has a user/);
    const weak = await mailvet(
      ['users', 'create', '--email', 'weak@example.com', '--account', account.id],
      'short',
    );
    assert.equal(weak.code, 2);
    const store = await openStore({ dataDir });
    try {
      assert.equal(
        (await authenticate(store.users, 'owner@example.com', 'a long enough password'))?.accountId,
        account.id,
      );
      assert.equal(
        (await authenticate(store.users, 'second@example.com', made.password))?.accountId,
        account.id,
      );
      assert.equal(await store.users.findUserByEmail('weak@example.com'), null);
    } finally {
      await store.close();
    }
  });

  test('users create --operator, users list and users update mark who is an operator', async () => {
    const account = await json(['accounts', 'create', '--name', 'Operators']);
    const ops = await json(
      ['users', 'create', '--email', 'Ops@Example.com', '--account', account.id, '--operator'],
      'a long enough password\n',
    );
    assert.equal(ops.operator, true);
    const plain = await json(
      ['users', 'create', '--email', 'plain@example.com', '--account', account.id],
      'a long enough password\n',
    );
    assert.equal(plain.operator, false);
    const listed = (await json(['users', 'list', '--account', account.id])) as Array<{
      email: string;
      operator: boolean;
    }>;
    assert.deepEqual(
      listed.map((user) => [user.email, user.operator]),
      [
        ['ops@example.com', true],
        ['plain@example.com', false],
      ],
    );
    const text = await mailvet(['users', 'list', '--account', account.id]);
    assert.match(
      text.stdout,
      new RegExp(`^${ops.id}  ops@example.com  account ${account.id}  operator$`, 'm'),
    );

    const promoted = await mailvet(['users', 'update', plain.id, '--operator']);
    assert.equal(promoted.code, 0, promoted.stderr);
    assert.equal(promoted.stdout, 'plain@example.com is now an operator\n');
    assert.equal((await json(['users', 'update', ops.id, '--no-operator'])).operator, false);
    const after = (await json(['users', 'list', '--account', account.id])) as Array<{ operator: boolean }>;
    assert.deepEqual(
      after.map((user) => user.operator),
      [false, true],
    );
    const neither = await mailvet(['users', 'update', plain.id]);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /--operator or --no-operator/);
    const nobody = await mailvet(['users', 'update', 'no-such-user', '--operator']);
    assert.equal(nobody.code, 2);
    assert.match(nobody.stderr, /no user with id no-such-user/);
  });

  test("keys create --account makes a key with its own caps; keys update changes them; the plan stays the account's", async () => {
    const account = await json(['accounts', 'create', '--name', 'Shared', '--plan', 'starter']);
    const key = await json([
      'keys',
      'create',
      '--name',
      'ci',
      '--account',
      account.id,
      '--monthly-quota',
      '10',
      '--rate-limit',
      '2',
    ]);
    assert.deepEqual(
      [key.account_id, key.plan, key.caps.monthly_cap, key.caps.rate_limit],
      [account.id, 'starter', 10, 2],
    );
    assert.match(key.key, /^mv_live_/);
    const updated = await json([
      'keys',
      'update',
      key.id,
      '--monthly-cap',
      'none',
      '--rate-limit',
      '3',
      '--name',
      'ci-2',
    ]);
    assert.deepEqual([updated.name, updated.caps.monthly_cap, updated.caps.rate_limit], ['ci-2', null, 3]);
    const otherPlan = await mailvet([
      'keys',
      'create',
      '--name',
      'x',
      '--account',
      account.id,
      '--plan',
      'pro',
    ]);
    assert.equal(otherPlan.code, 2);
    assert.match(otherPlan.stderr, /plan is the account's/);
    // Without --account, one command still onboards an API-only customer on its own account.
    const solo = await json(['keys', 'create', '--name', 'solo', '--plan', 'pro', '--monthly-quota', '99']);
    assert.notEqual(solo.account_id, account.id);
    assert.deepEqual([solo.plan, solo.monthly_quota, solo.caps.monthly_cap], ['pro', 99, null]);
  });
});
