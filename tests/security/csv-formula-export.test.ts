/**
 * Attack: a list whose cells are spreadsheet formulas. An export opened in a spreadsheet would run
 * them, and Mailvet's own suggestion column used to repeat a formula local part with the corrected
 * domain. By default every formula-like cell is exported with a leading quote; `raw=true` gives
 * the cells untouched for those who want them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { ListView } from '../../src/lists/list-view.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';

const HOSTILE = '=1+2@outlok.com';
const CSV = `email,name,phone\n${HOSTILE},"=HYPERLINK(""http://attacker.example"",""click"")",+44 20\nalice@accept.test,@SUM(A1),-1\n`;

let lists: ListServer;
let key: string;
let listId: string;

before(async () => {
  lists = await startListServer();
  key = await lists.key();
  const created = await lists.api(key, '/lists', {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: CSV,
  });
  assert.equal(created.status, 202);
  listId = ((await created.json()) as ListView).id;
  await lists.waitFor(key, listId, (list) => list.state === 'completed');
});

after(() => lists?.close());

async function download(query: string): Promise<Record<string, string>[]> {
  const response = await lists.api(key, `/lists/${listId}/results?format=csv${query}`);
  assert.equal(response.status, 200);
  return parse(await response.text(), { columns: true }) as Record<string, string>[];
}

test('the default export defuses every formula cell, our suggestion included', async () => {
  const [hostile, alice] = await download('');
  assert.equal(hostile?.email, `'${HOSTILE}`);
  assert.equal(hostile?.name, `'=HYPERLINK("http://attacker.example","click")`);
  assert.equal(hostile?.phone, "'+44 20");
  assert.equal(hostile?.mailvet_suggestion, "'=1+2@outlook.com");
  assert.equal(alice?.email, 'alice@accept.test');
  assert.equal(alice?.name, "'@SUM(A1)");
  assert.equal(alice?.phone, "'-1");
  assert.equal(alice?.mailvet_status, 'VALID');
});

test('raw=true gives the cells exactly as uploaded', async () => {
  const [hostile, alice] = await download('&raw=true');
  assert.equal(hostile?.email, HOSTILE);
  assert.equal(hostile?.name, '=HYPERLINK("http://attacker.example","click")');
  assert.equal(hostile?.mailvet_suggestion, '=1+2@outlook.com');
  assert.equal(alice?.phone, '-1');
});

test('a raw value that is not a boolean is a 422', async () => {
  const response = await lists.api(key, `/lists/${listId}/results?raw=maybe`);
  assert.equal(response.status, 422);
  assert.equal(((await response.json()) as { code: string }).code, 'validation_failed');
});
