/**
 * `mailvet erase EMAIL --account ID`, run as an operator would through bin/mailvet: the address
 * goes from the account's list rows and results and its feedback, matched as the verifier
 * normalises it (the domain in any case); another account's copy stays; a second run erases nothing; the audit log says
 * who erased what by the address's keyed hash, never the address; bad input exits 2.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { FeedbackService } from '../../src/feedback/feedback-service.ts';
import type { Store } from '../../src/store.ts';
import { addUploadRows } from '../helpers/list-upload.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));
const NOW = new Date('2026-11-20T10:00:00.000Z');

describe('mailvet erase', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailvet-cli-erase-'));
  });
  after(async () => rm(dataDir, { recursive: true, force: true }));

  const mailvet = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, MAILVET_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' } },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
      );
    });

  async function listWith(store: Store, accountId: string, keyId: string, emails: string[]): Promise<string> {
    const id = await store.lists.beginList({ accountId, apiKeyId: keyId, source: 'json', header: null }, NOW);
    const rows = emails.map((email, i) => {
      const key = email.toLowerCase().replace('@example.TEST', '@example.test');
      return { rowNumber: i + 1, email, addressKey: key, domain: 'example.test', fields: null };
    });
    await addUploadRows(store.lists, id, rows, NOW);
    await store.lists.finishUpload(id, NOW, { name: 'l', webhookUrl: null });
    return id;
  }

  test('erases the address from its account only, once, and records it without the address', async () => {
    const store = await openStore({ dataDir });
    let mine: string;
    let theirs: string;
    let myList: string;
    let theirList: string;
    try {
      const me = await issueApiKey(store, { name: 'me', plan: 'pro' });
      const them = await issueApiKey(store, { name: 'them', plan: 'pro' });
      mine = me.record.accountId;
      theirs = them.record.accountId;
      myList = await listWith(store, mine, me.record.id, ['alice@example.test', 'bob@example.test']);
      theirList = await listWith(store, theirs, them.record.id, ['alice@example.test']);
      const feedback = new FeedbackService({ store: store.feedback, maxStoredEvents: 100 });
      const bounce = {
        email: 'alice@example.test',
        event: 'hard_bounce' as const,
        at: '2026-11-01T00:00:00.000Z',
      };
      assert.equal((await feedback.submit(mine, [bounce])).kind, 'recorded');
      assert.equal((await feedback.submit(theirs, [bounce])).kind, 'recorded');
    } finally {
      await store.close();
    }

    const erased = await mailvet(['erase', 'alice@Example.TEST', '--account', mine, '--json']);
    assert.equal(erased.code, 0, erased.stderr);
    const answer = JSON.parse(erased.stdout) as { account_id: string; erased: Record<string, number> };
    assert.equal(answer.account_id, mine);
    assert.equal(answer.erased.list_rows, 1);
    assert.equal(answer.erased.feedback, 1);

    const again = await mailvet(['erase', 'alice@example.test', '--account', mine, '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout).erased, { list_rows: 0, feedback: 0, cached: 0 });

    const after = await openStore({ dataDir });
    try {
      const myRows = await after.lists.resultRows(myList, 0, 10);
      assert.equal(myRows.length, 2, 'the row stays counted');
      assert.equal(
        myRows.some((row) => row.email.toLowerCase().includes('alice')),
        false,
      );
      assert.equal(
        myRows.some((row) => row.email === 'bob@example.test'),
        true,
      );
      assert.deepEqual(
        (await after.lists.resultRows(theirList, 0, 10)).map((row) => row.email),
        ['alice@example.test'],
        "the other account's list is untouched",
      );
      assert.equal(await after.feedback.countEvents(mine), 0);
      assert.equal(await after.feedback.countEvents(theirs), 1);
      const entries = await after.audit.list(mine, { action: 'address.erased', limit: 10 });
      assert.equal(entries.length, 2);
      assert.equal(entries[0]?.actor.type, 'operator');
      assert.equal(JSON.stringify(entries).toLowerCase().includes('alice'), false, 'never the address');
    } finally {
      await after.close();
    }
  });

  test('refuses an unknown account and a value that is no address, with exit code 2', async () => {
    const unknown = await mailvet(['erase', 'alice@example.test', '--account', 'nobody']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no account nobody/);
    const notAnAddress = await mailvet(['erase', 'alice', '--account', 'nobody']);
    assert.equal(notAnAddress.code, 2);
    assert.match(notAnAddress.stderr, /not an email address/);
  });
});
