/**
 * Laying a catch-all assessment on a finished result: only the catch-all verdict moves, within the
 * band scoring uses, keeping the modifiers already applied; everything else is returned as it was.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withCatchAllAssessment } from '../../../src/verification/catch-all/apply.ts';
import type { CatchAllAssessment } from '../../../src/verification/catch-all/types.ts';
import { noEvidence } from '../../../src/verification/evidence.ts';
import type { VerificationResult } from '../../../src/verification/report.ts';
import { BASE_SCORES, CATCH_ALL_BAND, MODIFIERS } from '../../../src/verification/scoring.ts';

function catchAllResult(score: number = BASE_SCORES.catchAll): VerificationResult {
  return {
    email: 'jane.doe@catchall.test',
    checks: {
      syntax: true,
      domain_exists: true,
      mx_records: true,
      mailbox_exists: true,
      disposable: false,
      role_based: false,
      suggestions: [],
      free_provider: false,
      catch_all: true,
      smtp: 'catch_all',
      catch_all_confidence: null,
    },
    score,
    status: 'PROBABLY_VALID',
    reason: 'catch_all',
    duration_ms: 12,
    evidence: noEvidence(),
  };
}

const assessment = (confidence: number): CatchAllAssessment => ({
  confidence,
  signals: [{ signal: 'name_like', weight: 0.9, detail: 'made of listed given names and surnames' }],
});

describe('withCatchAllAssessment', () => {
  it('sets the confidence, the signals and the band score', () => {
    const result = withCatchAllAssessment(catchAllResult(), assessment(80));
    assert.equal(result.checks.catch_all_confidence, 80);
    assert.equal(
      result.score,
      Math.round(CATCH_ALL_BAND.low + ((CATCH_ALL_BAND.high - CATCH_ALL_BAND.low) * 80) / 100),
    );
    assert.equal(result.score, 76);
    assert.deepEqual(result.evidence.catch_all_signals, assessment(80).signals);
    assert.equal(result.status, 'PROBABLY_VALID');
    assert.equal(result.reason, 'catch_all');
  });

  it('spans the band from its low end to its high end', () => {
    assert.equal(withCatchAllAssessment(catchAllResult(), assessment(0)).score, CATCH_ALL_BAND.low);
    assert.equal(withCatchAllAssessment(catchAllResult(), assessment(100)).score, CATCH_ALL_BAND.high);
  });

  it('keeps a modifier already applied (a typo suggestion)', () => {
    const typo = catchAllResult(BASE_SCORES.catchAll + MODIFIERS.typoSuggestion);
    assert.equal(withCatchAllAssessment(typo, assessment(80)).score, 76 + MODIFIERS.typoSuggestion);
  });

  it('clamps at 0', () => {
    const low = catchAllResult(10);
    assert.equal(withCatchAllAssessment(low, assessment(0)).score, 0);
  });

  it('rounds a fractional confidence and bounds it', () => {
    const result = withCatchAllAssessment(catchAllResult(), { confidence: 140.2, signals: [] });
    assert.equal(result.checks.catch_all_confidence, 100);
  });

  it('leaves any other verdict alone', () => {
    const bounced: VerificationResult = { ...catchAllResult(5), status: 'INVALID', reason: 'bounced' };
    assert.equal(withCatchAllAssessment(bounced, assessment(90)), bounced);
    const notCatchAll: VerificationResult = {
      ...catchAllResult(95),
      checks: { ...catchAllResult().checks, catch_all: false },
      status: 'VALID',
      reason: 'mailbox_confirmed',
    };
    assert.equal(withCatchAllAssessment(notCatchAll, assessment(90)), notCatchAll);
    const role: VerificationResult = { ...catchAllResult(50), status: 'ROLE_BASED', reason: 'role_account' };
    assert.equal(withCatchAllAssessment(role, assessment(90)), role);
  });

  it('does not change the result it was given', () => {
    const original = catchAllResult();
    withCatchAllAssessment(original, assessment(10));
    assert.deepEqual(original, catchAllResult());
  });
});
