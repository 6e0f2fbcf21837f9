import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assessCatchAll,
  BASE_LOG_ODDS,
  type CatchAllAssessment,
  type CatchAllInput,
  foldForModel,
  gibberishOf,
  MAX_READ_LENGTH,
  SIGNAL_WEIGHTS,
  type SignalName,
  toConfidence,
} from '../../../src/verification/catch-all/index.ts';
import unlisted from '../../fixtures/catch-all/unlisted-names.json' with { type: 'json' };

const FIRST_DOT_LAST = ['john.smith', 'mary.johnson', 'robert.brown', 'linda.davis', 'james.miller'].map(
  (localPart) => ({ localPart, confirmed: false }),
);
const UNLISTED = `${unlisted.given[0]}.${unlisted.surnames[0]}`;
const at = (localPart: string, more: Partial<CatchAllInput> = {}): CatchAllInput => ({
  localPart,
  domain: 'acme.test',
  ...more,
});
const logOdds = (a: CatchAllAssessment) => a.signals.reduce((sum, s) => sum + s.weight, BASE_LOG_ODDS);
const weightsBy = (a: CatchAllAssessment) => new Map(a.signals.map((s) => [s.signal, s.weight]));

interface Row {
  signals: SignalName[];
  input: CatchAllInput;
  /** The same input without what raises these signals; every other signal must be the same. */
  baseline: CatchAllInput;
}

const ROWS: Row[] = [
  {
    signals: ['pattern_match'],
    input: at('james.wilson', { peers: FIRST_DOT_LAST }),
    baseline: at('james.wilson'),
  },
  { signals: ['pattern_compatible'], input: at(UNLISTED, { peers: FIRST_DOT_LAST }), baseline: at(UNLISTED) },
  { signals: ['pattern_mismatch'], input: at('jwilson', { peers: FIRST_DOT_LAST }), baseline: at('jwilson') },
  {
    signals: ['near_peer'],
    input: at('james.milelr', { peers: FIRST_DOT_LAST }),
    baseline: at('james.milelr', { peers: FIRST_DOT_LAST.filter((p) => p.localPart !== 'james.miller') }),
  },
  { signals: ['name_like'], input: at('mary.johnson'), baseline: at('mj') },
  { signals: ['name_partial'], input: at(`mary.${unlisted.surnames[0]}`), baseline: at('mj') },
  { signals: ['numeric_heavy'], input: at('84736251'), baseline: at('') },
  { signals: ['role_local_part'], input: at('info'), baseline: at('ab') },
  { signals: ['role_local_part'], input: at('acme'), baseline: at('acme', { domain: 'other.test' }) },
  {
    signals: ['provider_mailbox_host'],
    input: at('mary.johnson', { provider: { id: 'google', kind: 'mailbox_host' } }),
    baseline: at('mary.johnson', { provider: { id: 'unknown', kind: null } }),
  },
  {
    signals: ['provider_security_gateway'],
    input: at('mary.johnson', { provider: { id: 'proofpoint', kind: 'security_gateway' } }),
    baseline: at('mary.johnson', { provider: null }),
  },
  {
    signals: ['spf_sane', 'dmarc_enforced'],
    input: at('mary.johnson', { posture: { spf: 'sane', dmarc: 'reject' } }),
    baseline: at('mary.johnson'),
  },
  {
    signals: ['spf_sane', 'dmarc_monitoring'],
    input: at('mary.johnson', { posture: { spf: 'sane', dmarc: 'none' } }),
    baseline: at('mary.johnson'),
  },
  {
    signals: ['spf_weak', 'dmarc_absent'],
    input: at('mary.johnson', { posture: { spf: 'permissive', dmarc: 'absent' } }),
    baseline: at('mary.johnson'),
  },
  {
    signals: ['spf_absent', 'dmarc_enforced'],
    input: at('mary.johnson', { posture: { spf: 'absent', dmarc: 'quarantine' } }),
    baseline: at('mary.johnson'),
  },
];

describe('assessCatchAll: every signal moves the confidence by its weight', () => {
  for (const row of ROWS) {
    it(`${row.signals.join(' + ')} (${row.input.localPart})`, () => {
      const with_ = assessCatchAll(row.input);
      const without = assessCatchAll(row.baseline);
      const got = weightsBy(with_);
      const base = weightsBy(without);
      let moved = 0;
      for (const name of row.signals) {
        assert.equal(got.get(name), SIGNAL_WEIGHTS[name], `${name} in ${JSON.stringify(with_.signals)}`);
        assert.equal(base.has(name), false, `${name} absent from the baseline`);
        moved += SIGNAL_WEIGHTS[name];
      }
      const others = (m: Map<SignalName, number>) =>
        [...m].filter(([name]) => !row.signals.includes(name)).sort(([a], [b]) => a.localeCompare(b));
      assert.deepEqual(others(got), others(base), 'the other signals are the same');
      assert.ok(Math.abs(logOdds(with_) - logOdds(without) - moved) < 1e-9);
      assert.equal(Math.sign(with_.confidence - without.confidence), Math.sign(moved));
      assert.equal(with_.confidence, toConfidence(logOdds(with_)));
    });
  }

  it('gibberish lowers it by its weight times the measure', () => {
    const assessment = assessCatchAll(at('qwxzkjh'));
    const measure = gibberishOf('qwxzkjh').measure;
    const weight = weightsBy(assessment).get('gibberish');
    assert.ok(measure > 0.5);
    assert.equal(weight, Math.round(SIGNAL_WEIGHTS.gibberish * measure * 100) / 100);
    assert.ok(assessment.confidence < assessCatchAll(at('jane.doe')).confidence);
    assert.equal(assessment.confidence, toConfidence(BASE_LOG_ODDS + weight!));
  });

  it('feedback: a Beta-smoothed bounce rate, so 3 of 4 and 3 of 300 differ', () => {
    const weightFor = (hardBounces: number, delivered: number) =>
      weightsBy(assessCatchAll(at('mary.johnson', { feedback: { hardBounces, delivered } }))).get(
        'feedback_bounce_rate',
      );
    // (3 + 0.1 × 10) / (4 + 10) = 0.286: −0.5 × (logit 0.286 − logit 0.1) = −0.64.
    assert.equal(weightFor(3, 1), -0.64);
    // (3 + 1) / (300 + 10) = 0.013: +1.07.
    assert.equal(weightFor(3, 297), 1.07);
    // One bounce of one send says little: (1 + 1) / (1 + 10) = 0.18.
    assert.equal(weightFor(1, 0), -0.35);
    // Clamped to the signal's weight either way.
    assert.equal(weightFor(300, 100), -SIGNAL_WEIGHTS.feedback_bounce_rate);
    assert.equal(weightFor(0, 1000), SIGNAL_WEIGHTS.feedback_bounce_rate);
    assert.equal(weightFor(0, 0), undefined);
    const base = assessCatchAll(at('mary.johnson')).confidence;
    assert.ok(
      assessCatchAll(at('mary.johnson', { feedback: { hardBounces: 3, delivered: 1 } })).confidence < base,
    );
    assert.ok(
      assessCatchAll(at('mary.johnson', { feedback: { hardBounces: 3, delivered: 297 } })).confidence > base,
    );
  });

  it('with nothing known, answers the base', () => {
    assert.deepEqual(assessCatchAll(at('mj')), { confidence: toConfidence(BASE_LOG_ODDS), signals: [] });
    assert.equal(toConfidence(BASE_LOG_ODDS), 60);
  });
});

describe('assessCatchAll: bounds and hostile input', () => {
  const inRange = (a: CatchAllAssessment) =>
    Number.isInteger(a.confidence) &&
    a.confidence >= 0 &&
    a.confidence <= 100 &&
    a.signals.every((s) => Number.isFinite(s.weight));

  it('stays an integer in 0–100 for extreme and malformed inputs', () => {
    const inputs: CatchAllInput[] = [
      at(''),
      at('"quoted local"'),
      at('+tag'),
      at('....'),
      at('jöhn.smíth'),
      at('Ζωή.Παπαδοπούλου'),
      at('用户'),
      at('🙂🙂🙂🙂'),
      at('\u0000\u0001'),
      at('qwxzkjh', {
        peers: FIRST_DOT_LAST,
        provider: { id: 'mimecast', kind: 'security_gateway' },
        posture: { spf: 'absent', dmarc: 'absent' },
        feedback: { hardBounces: 1e9, delivered: 0 },
      }),
      at('mary.johnson', {
        peers: FIRST_DOT_LAST.map((p) => ({ ...p, confirmed: true })),
        provider: { id: 'google', kind: 'mailbox_host' },
        posture: { spf: 'sane', dmarc: 'reject' },
        feedback: { hardBounces: 0, delivered: 1e9 },
      }),
      at('x', { feedback: { hardBounces: Number.NaN, delivered: Number.POSITIVE_INFINITY } }),
      at('x', { feedback: { hardBounces: -5, delivered: -1 } }),
      // Shapes a careless caller might pass through a cast.
      at('x', { peers: [null, { localPart: 42 }, {}] as never }),
      at('x', { peers: 'john.smith' as never, provider: 'google' as never, posture: 7 as never }),
      { localPart: 12 as never, domain: undefined as never },
    ];
    for (const input of inputs) {
      const assessment = assessCatchAll(input);
      assert.ok(inRange(assessment), JSON.stringify({ input, assessment }));
    }
    assert.ok(assessCatchAll(inputs[9]!).confidence < 5);
    assert.ok(assessCatchAll(inputs[10]!).confidence > 95);
  });

  it('reads only the first characters of a 1 MB local part and of huge peers', () => {
    const huge = `${'a'.repeat(1_000_000)}@`;
    assert.ok(foldForModel(huge).length <= MAX_READ_LENGTH);
    assert.deepEqual(assessCatchAll(at(huge)), assessCatchAll(at('a'.repeat(MAX_READ_LENGTH * 2))));
    const long = 'b'.repeat(50_000);
    const peers = Array.from({ length: 2000 }, (_, i) => ({
      localPart: `${long}${i}`,
      confirmed: i % 2 === 0,
    }));
    const assessment = assessCatchAll(at(huge, { peers }));
    assert.ok(inRange(assessment));
  });

  it('folds unicode: case, diacritics and NFC/NFD forms read alike', () => {
    const composed = assessCatchAll(at('José.García'));
    assert.deepEqual(assessCatchAll(at('jose\u0301.garci\u0301a')), composed);
    assert.deepEqual(assessCatchAll(at('JOSE.GARCIA')), composed);
    assert.equal(weightsBy(composed).get('name_like'), SIGNAL_WEIGHTS.name_like);
  });

  it('is deterministic, and ignores the address itself among its peers', () => {
    const input = at('jwilson', { peers: FIRST_DOT_LAST, posture: { spf: 'sane', dmarc: 'none' } });
    assert.deepEqual(assessCatchAll(input), assessCatchAll(structuredClone(input)));
    const withSelf = { ...input, peers: [...FIRST_DOT_LAST, { localPart: 'JWilson', confirmed: true }] };
    assert.deepEqual(assessCatchAll(withSelf).confidence, assessCatchAll(input).confidence);
    const reversed = { ...input, peers: [...FIRST_DOT_LAST].reverse() };
    assert.equal(assessCatchAll(reversed).confidence, assessCatchAll(input).confidence);
  });
});
