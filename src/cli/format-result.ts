/**
 * Human-readable one-line rendering of a result for the terminal.
 */
import type { VerificationResult } from '../verification/report.ts';

/**
 * One line: address, status, score, reason, the flags that are set, and the evidence in short: the
 * reply that decided and, at a catch-all domain, the confidence (`--json` has every signal).
 */
export function formatResult(result: VerificationResult): string {
  const { checks } = result;
  const flags = [
    checks.disposable && 'disposable',
    checks.role_based && 'role',
    checks.free_provider && 'free',
    checks.catch_all === true && 'catch-all',
  ].filter((flag): flag is string => typeof flag === 'string');
  const reply = result.evidence.smtp_reply;
  const parts = [
    result.email,
    result.status,
    `score ${result.score}`,
    result.reason,
    `smtp ${checks.smtp}`,
    ...(reply !== null
      ? [`reply ${[reply.code, reply.enhanced_code].filter((part) => part !== null).join(' ')}`]
      : []),
    ...(checks.catch_all_confidence !== null ? [`catch-all confidence ${checks.catch_all_confidence}`] : []),
    ...(flags.length > 0 ? [flags.join(',')] : []),
    ...(checks.suggestions.length > 0 ? [`did you mean ${checks.suggestions.join(' or ')}?`] : []),
  ];
  return parts.join('  ');
}
