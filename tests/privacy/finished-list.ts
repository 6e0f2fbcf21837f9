/**
 * A finished list made straight in the store, as an upload and a run would leave it: its rows, its
 * addresses each with a result, completed at the time given.
 */
import assert from 'node:assert/strict';
import type { ApiKeyRecord } from '../../src/accounts/ports.ts';
import type { Store } from '../../src/store.ts';
import { addressKey, domainOfKey } from '../../src/usage/verification-service.ts';
import { sampleResult } from '../adapters/result-cache/contract.ts';
import { addUploadRows } from '../helpers/list-upload.ts';

/** A finished CSV list of `emails` (header email,name), every address with a result, ended at `endedAt`. */
export async function finishedList(
  store: Store,
  key: ApiKeyRecord,
  emails: readonly string[],
  endedAt: Date,
): Promise<string> {
  const at = new Date(endedAt.getTime() - 60_000);
  const id = await store.lists.beginList(
    { accountId: key.accountId, apiKeyId: key.id, source: 'csv', header: ['email', 'name'] },
    at,
  );
  const rows = emails.map((email, i) => {
    const addressKeyOfRow = addressKey(email);
    return {
      rowNumber: i + 1,
      email,
      addressKey: addressKeyOfRow,
      domain: domainOfKey(addressKeyOfRow),
      fields: [email, `Person ${i}`],
    };
  });
  for (let start = 0; start < rows.length; start += 5000)
    await addUploadRows(store.lists, id, rows.slice(start, start + 5000), at);
  await store.lists.finishUpload(id, at, { name: 'people.csv', webhookUrl: null });
  await store.lists.transition(id, ['queued'], 'running', at);
  const keys = [...new Set(rows.map((row) => row.addressKey))];
  for (let start = 0; start < keys.length; start += 5000) {
    await store.lists.saveResults(
      id,
      keys.slice(start, start + 5000).map((k) => ({ addressKey: k, result: sampleResult(k) })),
    );
  }
  assert.equal(await store.lists.transition(id, ['running'], 'completed', endedAt), true);
  return id;
}
