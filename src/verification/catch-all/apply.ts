/**
 * Applies a catch-all assessment to a finished result. The shared result cache holds every
 * account's verdict before any assessment (peers and feedback are one account's), so the
 * assessment is laid on afterwards: the score moves by the band score's distance from the flat
 * catch-all score, which keeps the modifiers scoring already applied (typo, quoted local part).
 */
import type { VerificationResult } from '../report.ts';
import { BASE_SCORES, catchAllConfidence, catchAllScore } from '../scoring.ts';
import type { CatchAllAssessment } from './types.ts';

/** True when the result is the catch-all rule's verdict, the only one an assessment moves. */
export function isCatchAllVerdict(result: Pick<VerificationResult, 'checks' | 'reason' | 'status'>): boolean {
  return (
    result.checks.catch_all === true && result.reason === 'catch_all' && result.status === 'PROBABLY_VALID'
  );
}

/** The result with the assessment's confidence, signals and band score; unchanged when not a catch-all verdict. */
export function withCatchAllAssessment(
  result: VerificationResult,
  assessment: CatchAllAssessment,
): VerificationResult {
  const confidence = catchAllConfidence(assessment);
  if (!isCatchAllVerdict(result) || confidence === null) return result;
  const shift = catchAllScore({ confidence, signals: [] }) - BASE_SCORES.catchAll;
  return {
    ...result,
    checks: { ...result.checks, catch_all_confidence: confidence },
    score: Math.max(0, Math.min(100, Math.round(result.score + shift))),
    evidence: {
      ...result.evidence,
      catch_all_signals: assessment.signals.map((signal) => ({
        signal: signal.signal,
        weight: signal.weight,
        detail: signal.detail,
      })),
    },
  };
}
