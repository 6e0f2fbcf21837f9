/**
 * The audit domain's own parts: entry ids sort as entries were recorded (within one millisecond
 * too, and with the clock moved back); before/after keep only the fields that changed; a service
 * told no initiator records nothing; the expiry task deletes with the 400-day cutoff of its clock,
 * batch by batch, and says how many it removed. The table of actions and the data-protection page
 * list the same actions.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { AUDIT_ACTION_NAMES, AUDIT_ACTIONS } from '../../src/audit/actions.ts';
import { auditCutoff, auditExpiryTask } from '../../src/audit/audit-expiry.ts';
import { AuditTrail, changedFields, recordChange } from '../../src/audit/audit-trail.ts';
import { ENTRY_ID_PATTERN, newEntryId } from '../../src/audit/entry-id.ts';
import type { AuditEntry, AuditLog, Initiator } from '../../src/audit/ports.ts';

/** A log in memory: enough for the trail's own behaviour. */
function memoryLog(): AuditLog & { entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  return {
    entries,
    record: async (entry) => {
      entries.push(entry);
    },
    list: async (accountId, query) =>
      entries
        .filter((entry) => entry.accountId === accountId)
        .sort((a, b) => (a.id < b.id ? 1 : -1))
        .slice(0, query.limit),
    deleteExpired: async () => 0,
  };
}

const BY: Initiator = { actor: { type: 'key', id: 'key_1', label: 'CRM (mv_live_ab12…)' }, ip: '192.0.2.1' };

test('ids sort in recording order: within one millisecond, and the millisecond first', () => {
  const at = new Date('2026-05-01T12:00:00.000Z');
  const same = Array.from({ length: 50 }, () => newEntryId(at));
  assert.deepEqual(same, [...same].sort());
  assert.equal(new Set(same).size, 50);
  for (const id of same) assert.match(id, new RegExp(ENTRY_ID_PATTERN));
  const later = newEntryId(new Date(at.getTime() + 1));
  assert.ok(later > same.at(-1)!);
  const earlier = newEntryId(new Date(at.getTime() - 1000));
  assert.ok(earlier < same[0]!, 'an earlier time sorts first, whatever came before it');
  // The millisecond is the UUIDv7's first 48 bits; version 7 and the RFC variant follow.
  const hex = later.slice(4);
  assert.equal(Number.parseInt(hex.slice(0, 12), 16), at.getTime() + 1);
  assert.equal(hex[12], '7');
  assert.match(hex[16]!, /[89ab]/);
});

test('the trail stamps entries with its clock and the action’s target type', async () => {
  const log = memoryLog();
  const trail = new AuditTrail({ log, now: () => new Date('2026-05-01T12:00:00.000Z') });
  const entry = await trail.record('acct_1', BY, { action: 'watch.created', targetId: 'wch_1' });
  assert.deepEqual(log.entries, [entry]);
  assert.deepEqual(
    { ...entry, id: undefined },
    {
      id: undefined,
      accountId: 'acct_1',
      at: '2026-05-01T12:00:00.000Z',
      actor: BY.actor,
      ip: '192.0.2.1',
      action: 'watch.created',
      target: { type: 'watch', id: 'wch_1' },
      details: {},
    },
  );
  assert.deepEqual(await trail.page('acct_1', { limit: 5 }), [entry]);
});

test('a service told no initiator, or given no trail, records nothing', async () => {
  const log = memoryLog();
  const trail = new AuditTrail({ log });
  await recordChange(trail, 'acct_1', undefined, { action: 'run.started', targetId: 'run_1' });
  await recordChange(undefined, 'acct_1', BY, { action: 'run.started', targetId: 'run_1' });
  assert.deepEqual(log.entries, []);
  await recordChange(trail, 'acct_1', BY, { action: 'run.started', targetId: 'run_1' });
  assert.equal(log.entries.length, 1);
});

test('before/after keep only the fields that changed; no change is null', () => {
  assert.deepEqual(
    changedFields(
      { name: 'CRM', rate_limit: null, statuses: ['subscribed'], write_back: { tags: true } },
      { name: 'CRM', rate_limit: 5, statuses: ['subscribed', 'pending'], write_back: { tags: true } },
    ),
    {
      before: { rate_limit: null, statuses: ['subscribed'] },
      after: { rate_limit: 5, statuses: ['subscribed', 'pending'] },
    },
  );
  assert.equal(changedFields({ plan: 'free' }, { plan: 'free' }), null);
});

test('the expiry task deletes before its clock’s 400-day cutoff, in batches, and says how many', async () => {
  const now = new Date('2027-03-01T00:00:00.000Z');
  assert.equal(auditCutoff(now), '2026-01-25T00:00:00.000Z');
  const calls: Array<[string, number]> = [];
  let left = 5;
  const reports: unknown[] = [];
  const task = auditExpiryTask({
    log: {
      deleteExpired: async (before, limit) => {
        calls.push([before, limit]);
        const removed = Math.min(left, limit);
        left -= removed;
        return removed;
      },
    },
    now: () => now,
    batch: 2,
    report: (_level, message, fields) => reports.push([message, fields]),
  });
  assert.equal(task.name, 'audit log expiry');
  assert.equal(task.runAtStart, true);
  await task.run();
  assert.deepEqual(calls, [
    ['2026-01-25T00:00:00.000Z', 2],
    ['2026-01-25T00:00:00.000Z', 2],
    ['2026-01-25T00:00:00.000Z', 2],
  ]);
  assert.deepEqual(reports, [['expired audit log entries removed', { removed: 5 }]]);
  await task.run();
  assert.equal(reports.length, 1, 'a run that removes nothing says nothing');
});

test('docs/data-protection.md lists every action the log records, and no other', () => {
  const page = readFileSync('docs/data-protection.md', 'utf8');
  const section = page.slice(page.indexOf('## Audit log'));
  const documented = [...section.matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map((match) => match[1]);
  assert.deepEqual(documented, AUDIT_ACTION_NAMES);
  for (const name of AUDIT_ACTION_NAMES) {
    const row = section.split('\n').find((line) => line.startsWith(`| \`${name}\` |`))!;
    assert.ok(row.includes(`| ${AUDIT_ACTIONS[name].target} |`), `${name}: its target type`);
  }
});
