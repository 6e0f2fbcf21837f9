/** The dashboard's score histogram: ten bins of scores, the last one closed at 100. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scoreBins } from '../../web/src/lib/histogram.ts';

test('ten bins: 0–9 … 90–100, each score counted once', () => {
  const bins = scoreBins([0, 9, 10, 55, 89, 90, 99, 100]);
  assert.deepEqual(
    bins.map((bin) => bin.label),
    ['0–9', '10–19', '20–29', '30–39', '40–49', '50–59', '60–69', '70–79', '80–89', '90–100'],
  );
  assert.deepEqual(
    bins.map((bin) => bin.count),
    [2, 1, 0, 0, 0, 1, 0, 0, 1, 3],
  );
});

test('no scores: ten empty bins; a score out of range is clamped', () => {
  assert.deepEqual(
    scoreBins([]).map((bin) => bin.count),
    Array(10).fill(0),
  );
  const clamped = scoreBins([-5, 130]);
  assert.equal(clamped[0]!.count, 1);
  assert.equal(clamped[9]!.count, 1);
});
