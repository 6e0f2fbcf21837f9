/**
 * Attack: filling the disk every customer shares. Nothing capped an account's lists or rows and
 * nothing was ever deleted: one 1M-row upload added about 450 MB to SQLite. Now a plan caps the
 * rows an account keeps stored (413 `storage_limit_reached`) and its unfinished lists (429
 * `too_many_lists`), finished lists' rows and results are deleted after the plan's retention (the
 * list record stays), and SQLite reuses the space they held.
 *
 * A plans file gives the test plan small figures: 50 stored rows, 2 unfinished lists, 1 day.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';

let lists: ListServer;
let plansDir: string;

const PLANS = {
  free: { monthly_verifications: 1000, monthly_bulk_requests: 10, rate_limit_per_second: 1000 },
  tiny: {
    monthly_verifications: 100_000,
    monthly_bulk_requests: 10,
    rate_limit_per_second: 1000,
    max_stored_rows: 50,
    max_unfinished_lists: 2,
    retention_days: 1,
  },
  roomy: {
    monthly_verifications: 0,
    monthly_bulk_requests: 10,
    rate_limit_per_second: 1000,
    max_stored_rows: 1_000_000,
    retention_days: 1,
  },
};

before(async () => {
  plansDir = mkdtempSync(join(tmpdir(), 'mailvet-plans-'));
  writeFileSync(join(plansDir, 'plans.json'), JSON.stringify(PLANS));
  lists = await startListServer({ MAILVET_SMTP_PROBE: 'false', MAILVET_PLANS: join(plansDir, 'plans.json') });
});
after(async () => {
  await lists?.close();
  if (plansDir !== undefined) rmSync(plansDir, { recursive: true, force: true });
});

async function keyOn(plan: string, monthlyQuota?: number): Promise<string> {
  const issued = await issueApiKey(lists.server.store, {
    name: 'storage test',
    plan,
    monthlyQuota,
    rateLimit: 1000,
  });
  return issued.key;
}

function csv(rows: number, tag: string, extra = ''): string {
  const domain = lists.world.domains['accept-known'];
  return `email,note\n${Array.from({ length: rows }, (_, i) => `${tag}${i}@${domain},${extra}`).join('\n')}\n`;
}

async function upload(key: string, body: string) {
  const response = await lists.api(key, '/lists', {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { id: string; code: string; message: string },
  };
}

async function listCount(key: string): Promise<number> {
  return ((await (await lists.api(key, '/lists')).json()) as { lists: unknown[] }).lists.length;
}

test('stored rows are capped per account: the upload past the cap is 413 and nothing of it is kept', async () => {
  const key = await keyOn('tiny');
  const first = await upload(key, csv(30, 'a'));
  assert.equal(first.status, 202);
  await lists.waitFor(key, first.body.id, (list) => list.state === 'completed');
  const over = await upload(key, csv(30, 'b'));
  assert.equal(over.status, 413);
  assert.equal(over.body.code, 'storage_limit_reached');
  assert.match(over.body.message, /more than the 50 rows its plan allows/);
  assert.equal(await listCount(key), 1, 'the refused upload left nothing behind');
  const fits = await upload(key, csv(20, 'c'));
  assert.equal(fits.status, 202, 'exactly up to the cap');
  const full = await upload(key, csv(1, 'd'));
  assert.equal(full.status, 413);
  // Another account on the same plan has its own room.
  assert.equal((await upload(await keyOn('tiny'), csv(30, 'e'))).status, 202);
  // Deleting a list makes room again.
  assert.equal((await lists.api(key, `/lists/${first.body.id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await upload(key, csv(30, 'f'))).status, 202);
});

test('unfinished lists are capped per account: one more is 429 too_many_lists, before its body is read', async () => {
  // No quota: the lists pause, unfinished, and stay so.
  const key = await keyOn('tiny', 0);
  for (const tag of ['a', 'b']) {
    const created = await upload(key, csv(2, tag));
    assert.equal(created.status, 202);
    await lists.waitFor(key, created.body.id, (list) => list.state === 'paused');
  }
  const third = await upload(key, csv(2, 'c'));
  assert.equal(third.status, 429);
  assert.equal(third.body.code, 'too_many_lists');
  assert.equal(await listCount(key), 2);
});

test('a finished list’s rows are deleted after its plan’s retention, the list kept, and SQLite reuses its space', async () => {
  const key = await keyOn('roomy');
  const note = 'n'.repeat(200);
  const created = await upload(key, csv(5000, 'r', note));
  assert.equal(created.status, 202);
  const id = created.body.id;
  // No quota on this plan: it pauses at once; cancelled, it is a finished list never verified.
  await lists.api(key, `/lists/${id}/cancel`, { method: 'POST' });
  await lists.waitFor(key, id, (list) => list.state === 'cancelled');
  const dbFile = join(lists.dataDir, 'mailvet.db');
  const sizeWithList = databasePages(dbFile);

  // Ended 25 hours ago: past the plan's 1 day. The retention task (every 300 ms here) empties it.
  const db = new Database(dbFile);
  try {
    db.prepare('update lists set finished_at = ? where id = ?').run(
      new Date(Date.now() - 25 * 3600_000).toISOString(),
      id,
    );
  } finally {
    db.close();
  }
  const deadline = Date.now() + 30_000;
  while (
    ((await (await lists.api(key, `/lists/${id}`)).json()) as { results_expired?: boolean })
      .results_expired !== true
  ) {
    assert.ok(Date.now() < deadline, 'the expired list was not emptied');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal((await lists.api(key, `/lists/${id}/results`)).status, 410);
  // The rows go after the list is marked: once they are gone, incremental auto-vacuum gives the
  // freed pages back, and few are left free in the file.
  const freePages = () => {
    const check = new Database(dbFile, { readonly: true });
    try {
      assert.equal(check.pragma('auto_vacuum', { simple: true }), 2);
      const free = check.pragma('freelist_count', { simple: true }) as number;
      return { free, pages: check.pragma('page_count', { simple: true }) as number };
    } finally {
      check.close();
    }
  };
  for (let pages = freePages(); pages.free >= pages.pages * 0.1; pages = freePages()) {
    assert.ok(Date.now() < deadline, `${pages.free} free pages of ${pages.pages}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The same upload again fits in the pages the deleted list freed.
  const again = await upload(key, csv(5000, 's', note));
  assert.equal(again.status, 202);
  const growth = databasePages(dbFile) - sizeWithList;
  assert.ok(growth < sizeWithList * 0.2, `the database grew by ${growth} pages over ${sizeWithList}`);
});

/**
 * The database's pages, as its last commit left them (read through the WAL): what the data takes.
 * Not the files' sizes: the write-ahead log is reused, not shrunk, between checkpoints, which run
 * on their own thread every few seconds.
 */
function databasePages(path: string): number {
  const check = new Database(path, { readonly: true });
  try {
    return check.pragma('page_count', { simple: true }) as number;
  } finally {
    check.close();
  }
}
