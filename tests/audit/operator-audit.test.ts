/**
 * The operators' commands write the account's audit log, as an operator: `accounts create|update`
 * (plan, limits and name as before/after), `users create|update`, and `keys create|update|revoke`.
 * Run as an operator would, through bin/mailvet, on SQLite and on PostgreSQL (when DATABASE_URL
 * names a server); the entries are read back from the store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/adapters/store/open-store.ts';
import type { AuditEntry } from '../../src/audit/ports.ts';
import { schemaFactory } from '../helpers/postgres-schemas.ts';
import { requirePostgres } from '../helpers/services.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));
const SECRET = 'cd'.repeat(32);

function operatorSuite(kind: 'sqlite' | 'postgres', databaseUrl: () => Promise<string | undefined>): void {
  describe(`operator commands write the audit log (${kind})`, () => {
    let dataDir: string;
    let url: string | undefined;
    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'mailvet-operator-audit-'));
      url = await databaseUrl();
    });
    after(() => rm(dataDir, { recursive: true, force: true }));

    const env = () => ({
      ...process.env,
      MAILVET_DATA_DIR: dataDir,
      DATABASE_URL: url ?? '',
      REDIS_URL: '',
      ...(url !== undefined && { MAILVET_SECRET_KEY: SECRET }),
    });
    const mailvet = (args: string[]): Promise<Record<string, unknown>> =>
      new Promise((resolve, reject) => {
        const child = execFile(
          process.execPath,
          [BIN, ...args, '--json'],
          { env: env() },
          (error, stdout, stderr) =>
            error === null ? resolve(JSON.parse(stdout)) : reject(new Error(`${args.join(' ')}: ${stderr}`)),
        );
        child.stdin?.end('');
      });
    const revoke = (id: string): Promise<void> =>
      new Promise((resolve, reject) =>
        execFile(process.execPath, [BIN, 'keys', 'revoke', id], { env: env() }, (error, _out, stderr) =>
          error === null ? resolve() : reject(new Error(stderr)),
        ),
      );
    const logOf = async (accountId: string): Promise<AuditEntry[]> => {
      const store = await openStore({ dataDir, databaseUrl: url });
      try {
        return (await store.audit.list(accountId, { limit: 100 })).reverse();
      } finally {
        await store.close();
      }
    };

    test('every change is an entry of its account, by the operator, with no client address', async () => {
      const account = await mailvet(['accounts', 'create', '--name', 'Acme', '--plan', 'free', '--init']);
      const id = account.id as string;
      await mailvet([
        'accounts',
        'update',
        id,
        '--plan',
        'starter',
        '--monthly-quota',
        '5000',
        '--name',
        'Acme Ltd',
      ]);
      await mailvet(['accounts', 'update', id, '--plan', 'starter']);
      const user = await mailvet(['users', 'create', '--email', 'ops@acme.test', '--account', id]);
      await mailvet(['users', 'update', user.id as string, '--operator']);
      const key = await mailvet(['keys', 'create', '--name', 'CRM', '--account', id]);
      await mailvet(['keys', 'update', key.id as string, '--rate-limit', '3']);
      await revoke(key.id as string);
      const own = await mailvet(['keys', 'create', '--name', 'Onboarded', '--plan', 'pro']);

      const login = userInfo().username;
      const operator = {
        type: 'operator',
        id: `${login}@${hostname()}`,
        label: `${login}@${hostname()} (command line)`,
      };
      const entries = await logOf(id);
      for (const entry of entries) {
        assert.deepEqual([entry.actor, entry.ip, entry.accountId], [operator, null, id], entry.action);
      }
      const noCaps = { rate_limit: null, monthly_cap: null, bulk_cap: null };
      assert.deepEqual(
        entries.map((entry) => [entry.action, entry.target, entry.details]),
        [
          [
            'account.created',
            { type: 'account', id },
            { name: 'Acme', plan: 'free', monthly_quota: null, bulk_quota: null, rate_limit: null },
          ],
          [
            'account.plan_changed',
            { type: 'account', id },
            { before: { plan: 'free' }, after: { plan: 'starter' } },
          ],
          [
            'account.limits_changed',
            { type: 'account', id },
            { before: { monthly_quota: null }, after: { monthly_quota: 5000 } },
          ],
          [
            'account.settings_changed',
            { type: 'account', id },
            { before: { name: 'Acme' }, after: { name: 'Acme Ltd' } },
          ],
          // The second update changed nothing: no entry.
          ['user.created', { type: 'user', id: user.id }, { email: 'ops@acme.test', operator: false }],
          [
            'user.role_changed',
            { type: 'user', id: user.id },
            { before: { operator: false }, after: { operator: true } },
          ],
          ['key.created', { type: 'key', id: key.id }, { name: 'CRM', ...noCaps, prefix: key.prefix }],
          [
            'key.updated',
            { type: 'key', id: key.id },
            { before: { rate_limit: null }, after: { rate_limit: 3 } },
          ],
          ['key.revoked', { type: 'key', id: key.id }, { name: 'CRM', prefix: key.prefix }],
        ],
      );

      const onboarded = await logOf(own.account_id as string);
      assert.deepEqual(
        onboarded.map((entry) => [entry.action, entry.target.type, entry.actor.type]),
        [
          ['account.created', 'account', 'operator'],
          ['key.created', 'key', 'operator'],
        ],
        'a key made with its own account: the account, then the key',
      );
    });
  });
}

operatorSuite('sqlite', async () => undefined);

const postgres = await requirePostgres('PostgreSQL operator audit suite');
if (postgres.url === null) {
  test('operator commands write the audit log (postgres)', (t) => t.skip(postgres.skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());
  operatorSuite('postgres', async () => (await schemas.create()).url);
}
