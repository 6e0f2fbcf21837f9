/**
 * Cron expressions of schedules (src/integrations/schedules/cron.ts): what is accepted and refused
 * (on which field), and the next slot read in the schedule's time zone, summer time included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCron, nextSlot } from '../../src/integrations/schedules/cron.ts';

test('accepts five fields and nicknames, tidied', () => {
  assert.deepEqual(checkCron('  0  3 * *   1 ', ' Europe/Paris '), {
    kind: 'ok',
    cron: '0 3 * * 1',
    timezone: 'Europe/Paris',
  });
  for (const cron of ['@daily', '@weekly', '*/15 9-17 * * MON-FRI', '0 0 1 JAN,JUL *', '0 0 29 2 *'])
    assert.equal(checkCron(cron, 'UTC').kind, 'ok', cron);
});

test('refuses seconds, bad fields, unknown nicknames and expressions that never match, on cron', () => {
  for (const cron of [
    '0 0 3 * * 1',
    '0 3 * *',
    '60 * * * *',
    '0 24 * * *',
    '@often',
    '0 0 31 2 *',
    'x y z a b',
  ]) {
    const checked = checkCron(cron, 'UTC');
    assert.equal(checked.kind === 'invalid' && checked.field, 'cron', cron);
  }
});

test('refuses unknown zones and fixed offsets, on timezone', () => {
  for (const zone of ['Mars/Olympus', '+01:00', '-0500', '', 'UTC+1']) {
    const checked = checkCron('0 3 * * *', zone);
    assert.equal(checked.kind === 'invalid' && checked.field, 'timezone', zone);
  }
});

test('the next slot follows the zone across the change to summer time, strictly after the instant', () => {
  // Paris: UTC+1 until 2026-03-29 02:00, UTC+2 after.
  const at = (iso: string) => nextSlot('0 3 * * *', 'Europe/Paris', new Date(iso));
  assert.equal(at('2026-03-27T12:00:00.000Z'), '2026-03-28T02:00:00.000Z');
  assert.equal(at('2026-03-28T12:00:00.000Z'), '2026-03-29T01:00:00.000Z');
  assert.equal(at('2026-03-29T01:00:00.000Z'), '2026-03-30T01:00:00.000Z', 'not the slot it is at');
  assert.equal(
    nextSlot('0 3 * * *', 'America/New_York', new Date('2026-01-15T12:00:00Z')),
    '2026-01-16T08:00:00.000Z',
  );
  assert.equal(nextSlot('not cron', 'UTC', new Date()), null);
});
