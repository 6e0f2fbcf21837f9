/**
 * MAILVET_DEFAULT_PLAN: the plan new accounts get. Sign-up through the API, and `accounts create`
 * and `keys create` without --plan, land on it; a plan the plans in force do not have (built-in,
 * or MAILVET_PLANS) stops `mailvet serve` at start with one line naming it and the plans there
 * are, exit code 2, and so does a command that would make an account.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type TestApp, testApp } from '../helpers/app.ts';
import { signUp } from '../http/routes/v1/accounts/sessions.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mailvet-default-plan-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

function mailvet(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: {
          ...process.env,
          MAILVET_SMTP_PROBE: 'false',
          MAILVET_DNS_SERVERS: '127.0.0.1:9',
          DATABASE_URL: '',
          REDIS_URL: '',
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('MAILVET_DEFAULT_PLAN', () => {
  it('puts a signed-up account on that plan', async () => {
    let t: TestApp | undefined;
    try {
      t = await testApp({ env: { MAILVET_DEFAULT_PLAN: 'starter' } });
      const browser = await signUp(t.app);
      const account = await browser.request({ method: 'GET', url: '/api/v1/account' });
      assert.equal(account.statusCode, 200, account.body);
      assert.equal(account.json().plan, 'starter');
      assert.equal((await t.store.findAccount(browser.accountId))?.plan, 'starter');
    } finally {
      await t?.close();
    }
  });

  it('is the plan of `accounts create` and `keys create` without --plan; --plan still wins', async () => {
    const env = { MAILVET_DATA_DIR: join(scratch, 'cli'), MAILVET_DEFAULT_PLAN: 'pro' };
    const made = await mailvet(['accounts', 'create', '--name', 'Team', '--init', '--json'], env);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(JSON.parse(made.stdout).plan, 'pro');
    const key = await mailvet(['keys', 'create', '--name', 'app', '--json'], env);
    assert.equal(key.code, 0, key.stderr);
    assert.equal(JSON.parse(key.stdout).plan, 'pro');
    const named = await mailvet(['accounts', 'create', '--name', 'Other', '--plan', 'free', '--json'], env);
    assert.equal(JSON.parse(named.stdout).plan, 'free');
  });

  it('is checked against MAILVET_PLANS: a plan only the file has is fine', async () => {
    const plans = join(scratch, 'plans.json');
    await writeFile(
      plans,
      JSON.stringify({
        free: { monthly_verifications: 100, monthly_bulk_requests: 1, rate_limit_per_second: 1 },
        team: { monthly_verifications: 1_000_000, monthly_bulk_requests: 1000, rate_limit_per_second: 100 },
      }),
    );
    const env = {
      MAILVET_DATA_DIR: join(scratch, 'team'),
      MAILVET_PLANS: plans,
      MAILVET_DEFAULT_PLAN: 'team',
    };
    const made = await mailvet(['accounts', 'create', '--name', 'Team', '--init', '--json'], env);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(JSON.parse(made.stdout).plan, 'team');
    // The built-in plans are replaced by the file: "starter" is no longer one.
    const refused = await mailvet(['serve'], { ...env, MAILVET_DEFAULT_PLAN: 'starter', PORT: '0' });
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      new RegExp(`MAILVET_DEFAULT_PLAN: there is no plan "starter": ${plans} has free, team`),
    );
  });

  it('stops `mailvet serve` at start when no plan has that name, in one plain line', async () => {
    const data = join(scratch, 'serve');
    const run = await mailvet(['serve'], {
      MAILVET_DATA_DIR: data,
      MAILVET_DEFAULT_PLAN: 'gold',
      HOST: '127.0.0.1',
      PORT: '0',
    });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /MAILVET_DEFAULT_PLAN: there is no plan "gold": the built-in plans are free, starter, pro/,
    );
    assert.doesNotMatch(run.stderr, /\n\s+at |"level":/);
    assert.doesNotMatch(run.stdout, /listening/);
    // Refused before anything was opened: not even the data directory was made.
    assert.equal(existsSync(data), false);
    const accounts = await mailvet(['accounts', 'create', '--name', 'X', '--init'], {
      MAILVET_DATA_DIR: data,
      MAILVET_DEFAULT_PLAN: 'gold',
    });
    assert.equal(accounts.code, 2);
    assert.match(accounts.stderr, /there is no plan "gold"/);
    const badName = await mailvet(['serve'], { MAILVET_DATA_DIR: data, MAILVET_DEFAULT_PLAN: 'Gold!' });
    assert.equal(badName.code, 2);
    assert.match(badName.stderr, /MAILVET_DEFAULT_PLAN: must be a plan name/);
  });
});
