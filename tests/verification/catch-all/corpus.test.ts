import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { auc, benchCatchAll, loadCorpus } from '../../../bench/catch-all.ts';

describe('catch-all corpus', () => {
  it('is what scripts/build-catch-all-corpus.ts generates', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/build-catch-all-corpus.ts', '--check'],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });

  it('keeps the tuning and held-out splits apart', () => {
    const domains = (split: 'tuning' | 'held-out') => new Set(loadCorpus(split).map((c) => c.input.domain));
    const tuning = domains('tuning');
    for (const domain of domains('held-out')) assert.equal(tuning.has(domain), false, domain);
  });

  it('holds both labels and every kind of address', () => {
    const cases = loadCorpus('held-out');
    const kinds = new Set(cases.map((c) => c.kind));
    for (const kind of [
      'employee',
      'role',
      'guessed',
      'random',
      'other_pattern',
      'typo',
      'mash',
      'numeric',
    ]) {
      assert.ok(kinds.has(kind), kind);
    }
    assert.ok(cases.some((c) => c.label === 1) && cases.some((c) => c.label === 0));
  });
});

describe('auc', () => {
  it('is 1 for a perfect order, 0 for a reversed one, 0.5 for ties', () => {
    assert.equal(auc([1, 2, 3, 4], [0, 0, 1, 1]), 1);
    assert.equal(auc([4, 3, 2, 1], [0, 0, 1, 1]), 0);
    assert.equal(auc([7, 7, 7, 7], [0, 1, 0, 1]), 0.5);
    assert.equal(auc([1, 3, 2, 4], [0, 0, 1, 1]), 0.75);
  });
});

describe('catch-all confidence on the held-out split', () => {
  const figures = benchCatchAll('held-out');

  it('orders addresses far better than the flat 70', () => {
    assert.equal(figures.flat, 0.5);
    // Quality floor, see docs/catch-all.md: a random order's AUC has a standard deviation of about
    // 0.018 at this size (589 real, 484 made up), so 0.75 is some fourteen of them above chance;
    // it sits 0.11 below the measured 0.859, a margin small weight changes do not eat.
    assert.ok(figures.model >= 0.75, `held-out AUC ${figures.model}`);
  });

  it('does better with every signal group than with any one alone', () => {
    for (const [group, value] of Object.entries(figures.only)) {
      assert.ok(figures.model > value, `${group} alone ${value} vs all ${figures.model}`);
    }
  });
});
