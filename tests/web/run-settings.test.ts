/**
 * The dashboard's run form read into the API's run settings: what a dry run, a scope and the
 * statuses become, and what is said beside a field at fault.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRunSettings } from '../../web/src/integrations/run-settings.ts';

function form(entries: Array<[string, string]>): FormData {
  const data = new FormData();
  for (const [name, value] of entries) data.append(name, value);
  return data;
}

const WRITE_ALL: Array<[string, string]> = [
  ['write_fields', 'on'],
  ['write_tags', 'on'],
  ['write_segments', 'on'],
];

test('the defaults: subscribed members, all of them, fields, tags and segments written, nobody unsubscribed', () => {
  const parsed = parseRunSettings(form([['statuses', 'subscribed'], ['scope', 'all'], ...WRITE_ALL]));
  assert.deepEqual(parsed, {
    ok: true,
    settings: {
      statuses: ['subscribed'],
      scope: 'all',
      stale_days: 90,
      write_back: { fields: true, tags: true, segments: true, unsubscribe_invalid: false },
    },
  });
});

test('a dry run writes nothing back, whatever boxes were ticked before', () => {
  const parsed = parseRunSettings(
    form([
      ['statuses', 'subscribed'],
      ['statuses', 'pending'],
      ['scope', 'changed'],
      ['dry_run', 'on'],
    ]),
  );
  assert.ok(parsed.ok);
  assert.equal(parsed.settings.write_back, null);
  assert.deepEqual(parsed.settings.statuses, ['subscribed', 'pending']);
  assert.equal(parsed.settings.scope, 'changed');
});

test('stale members take their days; unsubscribing is sent only when ticked', () => {
  const parsed = parseRunSettings(
    form([
      ['statuses', 'subscribed'],
      ['scope', 'stale'],
      ['stale_days', ' 30 '],
      ['unsubscribe_invalid', 'on'],
    ]),
  );
  assert.ok(parsed.ok);
  assert.equal(parsed.settings.stale_days, 30);
  assert.deepEqual(parsed.settings.write_back, {
    fields: false,
    tags: false,
    segments: false,
    unsubscribe_invalid: true,
  });
});

test('no status, bad days and nothing to write are each said beside their field', () => {
  const parsed = parseRunSettings(
    form([
      ['scope', 'stale'],
      ['stale_days', '0'],
      ['statuses', 'archived'],
    ]),
  );
  assert.deepEqual(parsed, {
    ok: false,
    fields: {
      statuses: 'Choose at least one status.',
      stale_days: 'A whole number of days, from 1 to 3650.',
      write_back: 'Choose something to write back, or make it a dry run.',
    },
  });
  const notWhole = parseRunSettings(
    form([['statuses', 'subscribed'], ['scope', 'stale'], ['stale_days', '1.5'], ...WRITE_ALL]),
  );
  assert.deepEqual(notWhole, {
    ok: false,
    fields: { stale_days: 'A whole number of days, from 1 to 3650.' },
  });
});
