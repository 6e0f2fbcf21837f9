/**
 * The catch-all context's cost is bounded: the peers of a list at a domain are read once for all
 * of that list's addresses there (on the real SQLite list store), while each list, and each
 * account's own verifications, read their own.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/adapters/store/open-store.ts';
import type { Store } from '../../src/store.ts';
import { CatchAllContext } from '../../src/usage/catch-all-context.ts';
import { verificationResult } from '../adapters/store/list-store-contract.ts';
import { createKey } from '../adapters/store/store-fixtures.ts';
import { addUploadRows } from '../helpers/list-upload.ts';

let dir: string;
let store: Store;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailvet-catch-all-context-'));
  store = await openStore({ dataDir: dir });
});
after(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const LOCALS = ['john.smith', 'mary.johnson', 'robert.brown', 'linda.davis', 'susan.clark'];

async function listAt(domain: string, accountId: string, keyId: string): Promise<string> {
  const id = await store.lists.beginList(
    { accountId, apiKeyId: keyId, source: 'json', header: null },
    new Date(),
  );
  const rows = Array.from({ length: 200 }, (_, i) => {
    const email = `${LOCALS[i % LOCALS.length]}${i >= LOCALS.length ? i : ''}@${domain}`;
    return { rowNumber: i + 1, email, addressKey: email, domain, fields: null };
  });
  await addUploadRows(store.lists, id, rows, new Date());
  await store.lists.finishUpload(id, new Date(), { name: 'peers', webhookUrl: null });
  return id;
}

describe('CatchAllContext', () => {
  it('reads a list’s peers at a domain once for all its addresses there', async () => {
    const key = await createKey(store);
    const reads: string[] = [];
    const context = new CatchAllContext({
      postureOf: async () => null,
      listPeers: (listId, domain, limit) => {
        reads.push(`${listId} ${domain}`);
        return store.lists.peersAtDomain(listId, domain, limit);
      },
      feedback: store.feedback,
    });
    const first = await listAt('acme.test', key.accountId, key.id);
    const second = await listAt('acme.test', key.accountId, key.id);
    const assessed = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        context.assess(key.accountId, verificationResult(`james.wilson${i}@acme.test`, 'PROBABLY_VALID'), {
          listId: first,
        }),
      ),
    );
    assert.deepEqual(reads, [`${first} acme.test`]);
    for (const result of assessed) assert.equal(typeof result.checks.catch_all_confidence, 'number');
    await context.assess(key.accountId, verificationResult('ann.lee@acme.test', 'PROBABLY_VALID'), {
      listId: second,
    });
    assert.deepEqual(reads, [`${first} acme.test`, `${second} acme.test`], 'another list reads its own');
    const single = await context.assess(
      key.accountId,
      verificationResult('ann.lee@acme.test', 'PROBABLY_VALID'),
      {},
    );
    assert.equal(reads.length, 2, 'single verification reads the account feedback, not a list');
    assert.ok(!single.evidence.catch_all_signals.some((signal) => signal.signal.startsWith('pattern_')));
  });

  it('leaves a result that is not a catch-all verdict alone, without reading anything', async () => {
    const key = await createKey(store);
    let reads = 0;
    const context = new CatchAllContext({
      postureOf: async () => {
        reads += 1;
        return null;
      },
      listPeers: async () => {
        reads += 1;
        return [];
      },
      feedback: store.feedback,
    });
    const valid = verificationResult('ann.lee@acme.test', 'VALID');
    assert.equal(await context.assess(key.accountId, valid, { listId: 'x' }), valid);
    assert.equal(reads, 0);
  });
});
