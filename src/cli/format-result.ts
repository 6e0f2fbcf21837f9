/**
 * Human-readable one-line rendering of a result for the terminal.
 */
import type { VerificationResult } from '../verification/report.ts';

/** One line: address, status, score, reason, and the flags that are set. */
export function formatResult(result: VerificationResult): string {
  const { checks } = result;
  const flags = [
    checks.disposable && 'disposable',
    checks.role_based && 'role',
    checks.free_provider && 'free',
    checks.catch_all === true && 'catch-all',
  ].filter((flag): flag is string => typeof flag === 'string');
  const parts = [
    result.email,
    result.status,
    `score ${result.score}`,
    result.reason,
    `smtp ${checks.smtp}`,
    ...(flags.length > 0 ? [flags.join(',')] : []),
    ...(checks.suggestions.length > 0 ? [`did you mean ${checks.suggestions.join(' or ')}?`] : []),
  ];
  return parts.join('  ');
}
