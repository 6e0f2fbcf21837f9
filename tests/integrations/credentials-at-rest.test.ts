/**
 * Credentials at rest, in both stores: after connecting Mailchimp through the composed service,
 * the SQLite files and PostgreSQL's `integrations` table hold the key only sealed, and the sealed
 * value opens back to it. PostgreSQL needs DATABASE_URL (skipped without it, except under CI).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { createIntegrations } from '../../src/container/integrations.ts';
import { CredentialVault } from '../../src/integrations/credentials.ts';
import type { Store } from '../../src/store.ts';
import { requirePostgres } from '../helpers/services.ts';
import {
  type EmulatedAccount,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

const postgres = await requirePostgres('credentials at rest on PostgreSQL');
const SECRET = randomBytes(32);

let emulator: MailchimpEmulator;
let account: EmulatedAccount;
before(async () => {
  emulator = await startMailchimpEmulator();
  account = emulator.addAccount({ name: 'At Rest' });
});
after(() => emulator?.close());

/** Connects the emulator's account through the composed service; the integration's id. */
async function connectIn(store: Store): Promise<string> {
  const owner = await store.createAccount({ name: 'Owner', plan: 'free' });
  const service = createIntegrations(
    { MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, '') },
    store.integrations,
    SECRET,
  );
  const integration = await service.connectWithApiKey(owner.id, 'mailchimp', account.apiKey);
  const stored = await store.integrations.findIntegration(owner.id, integration.id);
  const opened = JSON.parse(new CredentialVault(SECRET).open(stored!.sealedCredential, integration.id));
  assert.equal(opened.secret, account.apiKey, 'the sealed value opens back to the key');
  return integration.id;
}

test('SQLite: no file of the data directory holds the key', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-at-rest-'));
  const store = await openStore({ dataDir });
  try {
    await connectIn(store);
  } finally {
    await store.close();
  }
  const secret = account.apiKey.split('-')[0]!;
  for (const file of await readdir(dataDir)) {
    const bytes = await readFile(join(dataDir, file));
    assert.ok(!bytes.includes(secret), `${file} holds the key`);
  }
  await rm(dataDir, { recursive: true, force: true });
});

test('PostgreSQL: the integrations table never holds the key', { skip: postgres.skipReason }, async () => {
  const admin = new pg.Client({ connectionString: postgres.url! });
  await admin.connect();
  const schema = `mailvet_test_${randomBytes(6).toString('hex')}`;
  await admin.query(`create schema ${schema}`);
  try {
    const url = new URL(postgres.url!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const store = await openStore({ databaseUrl: url.toString(), dataDir: '/nonexistent/mailvet-data' });
    try {
      await connectIn(store);
    } finally {
      await store.close();
    }
    const { rows } = await admin.query(`select * from ${schema}.integrations`);
    assert.equal(rows.length, 1);
    const secret = account.apiKey.split('-')[0]!;
    assert.ok(!JSON.stringify(rows).includes(secret), 'a column holds the key');
    assert.match(rows[0].credential, /^v1\./);
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
});
