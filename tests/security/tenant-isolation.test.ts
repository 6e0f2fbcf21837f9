/**
 * Attack: two customers onboarded with `mailvet keys create` each try the other's list. Keys made by
 * the CLI used to share one account, and lists are scoped by account, so key B could read, download,
 * pause and delete key A's list. Now each CLI key is its own account: every route answers B with a
 * 404 and A's list is untouched; a key added with `--account` shares on purpose.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ListView } from '../../src/lists/list-view.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));

interface CliKey {
  id: string;
  key: string;
  account_id: string;
}

function keysCreate(dataDir: string, args: string[]): Promise<CliKey> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, 'keys', 'create', '--plan', 'pro', '--json', '--init', ...args],
      { env: { ...process.env, MAILVET_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

const CSV =
  'email,name,phone\nalice@accept.test,Alice Example,+44 20 7946 0001\nbob@accept.test,Bob Example,+44 20 7946 0002\n';

let lists: ListServer;
let alice: CliKey;
let mallory: CliKey;
let listId: string;

before(async () => {
  lists = await startListServer();
  // Made as an operator onboards two customers: the CLI, on the server's own database.
  alice = await keysCreate(lists.dataDir, ['--name', 'alice']);
  mallory = await keysCreate(lists.dataDir, ['--name', 'mallory']);
  const created = await lists.api(alice.key, '/lists?name=crm', {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: CSV,
  });
  assert.equal(created.status, 202, await created.clone().text());
  listId = ((await created.json()) as ListView).id;
  await lists.waitFor(alice.key, listId, (list) => list.state === 'completed');
});

after(() => lists?.close());

async function snapshot(key: string) {
  const list = (await (await lists.api(key, `/lists/${listId}`)).json()) as ListView;
  const csv = await (await lists.api(key, `/lists/${listId}/results?format=csv`)).text();
  return { state: list.state, counts: list.counts, csv };
}

describe('keys made by the CLI without --account', () => {
  test('belong to accounts of their own', () => {
    assert.notEqual(alice.account_id, mallory.account_id);
    assert.ok(alice.account_id.length > 0 && mallory.account_id.length > 0);
  });

  test("another customer's key gets 404 on every list route, and nothing changes", async () => {
    const before = await snapshot(alice.key);
    assert.match(before.csv, /Alice Example/);

    const index = (await (await lists.api(mallory.key, '/lists')).json()) as { lists: ListView[] };
    assert.deepEqual(index.lists, []);
    const attempts: Array<[string, string]> = [
      ['GET', `/lists/${listId}`],
      ['GET', `/lists/${listId}/results?format=csv`],
      ['GET', `/lists/${listId}/results?format=json`],
      ['POST', `/lists/${listId}/pause`],
      ['POST', `/lists/${listId}/resume`],
      ['POST', `/lists/${listId}/cancel`],
      ['DELETE', `/lists/${listId}`],
    ];
    for (const [method, path] of attempts) {
      const response = await lists.api(mallory.key, path, { method });
      assert.equal(response.status, 404, `${method} ${path}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body.code, 'not_found', `${method} ${path}`);
      assert.deepEqual(body.errors, []);
      assert.equal(typeof body.request_id, 'string');
      assert.doesNotMatch(JSON.stringify(body), /Alice|alice@/);
    }

    assert.deepEqual(await snapshot(alice.key), before);
  });

  test('a key added with --account shares that account on purpose', async () => {
    const colleague = await keysCreate(lists.dataDir, ['--name', 'alice ci', '--account', alice.account_id]);
    assert.equal(colleague.account_id, alice.account_id);
    const response = await lists.api(colleague.key, `/lists/${listId}`);
    assert.equal(response.status, 200);
  });

  test('--account with an unknown id is refused', async () => {
    await assert.rejects(
      keysCreate(lists.dataDir, ['--name', 'x', '--account', 'no-such-account']),
      /no account with id/,
    );
  });
});
