/**
 * The month and the day of an instant (UTC), which the request path asks on every request and
 * which remember the last answer: asking across a boundary, in either direction, must still give
 * the instant's own month or day.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dayOf } from '../../src/usage/daily-usage.ts';
import { monthBoundsOf, monthOf, nextMonthStart } from '../../src/usage/months.ts';
import { quotaState } from '../../src/usage/verification-service.ts';

const at = (iso: string) => new Date(iso);

test('monthOf: each instant its own UTC month, whatever was asked before', () => {
  const asked = [
    ['2026-01-31T23:59:59.999Z', '2026-01'],
    ['2026-02-01T00:00:00.000Z', '2026-02'],
    ['2026-01-31T23:59:59.999Z', '2026-01'],
    ['2026-12-31T23:59:59.999Z', '2026-12'],
    ['2027-01-01T00:00:00.000Z', '2027-01'],
    ['1969-12-31T23:59:59.999Z', '1969-12'],
    ['2026-02-15T12:00:00.000Z', '2026-02'],
  ] as const;
  for (const [iso, month] of asked) assert.equal(monthOf(at(iso)), month, iso);
  assert.throws(() => monthOf(new Date(Number.NaN)), RangeError);
  assert.equal(nextMonthStart(at('2026-12-31T23:59:59.999Z')).toISOString(), '2027-01-01T00:00:00.000Z');
});

test("the quota's reset: the next month's start of each instant, in text and in seconds", () => {
  const ceiling = { account: 100, key: null };
  for (const iso of [
    '2026-01-31T23:59:59.999Z',
    '2026-02-01T00:00:00.000Z',
    '2026-01-15T00:00:00.500Z',
    '2026-12-31T23:59:59.000Z',
    '1969-12-31T23:59:59.999Z',
  ]) {
    const now = at(iso);
    const reset = nextMonthStart(now);
    assert.equal(monthBoundsOf(now).untilText, reset.toISOString(), iso);
    const state = quotaState(ceiling, { account: 40, key: 0 }, now);
    assert.equal(state.resetAt, reset.toISOString(), iso);
    assert.equal(state.resetSeconds, Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000)), iso);
    assert.equal(state.remaining, 60);
  }
});

test('dayOf: each instant its own UTC day, whatever was asked before', () => {
  const asked = [
    ['2026-03-01T23:59:59.999Z', '2026-03-01'],
    ['2026-03-02T00:00:00.000Z', '2026-03-02'],
    ['2026-03-01T00:00:00.000Z', '2026-03-01'],
    ['1969-12-31T23:59:59.999Z', '1969-12-31'],
    ['1970-01-01T00:00:00.000Z', '1970-01-01'],
    ['1969-12-31T00:00:00.000Z', '1969-12-31'],
  ] as const;
  for (const [iso, day] of asked) assert.equal(dayOf(at(iso)), day, iso);
});
