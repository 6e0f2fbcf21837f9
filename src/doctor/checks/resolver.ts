/**
 * Resolver health: the same control queries the verifier trusts its resolver by
 * (MAILVET_DNS_CONTROL_NAMES, the MX of names that must exist). A resolver that cannot answer them
 * makes every lookup, here and in verification, worthless.
 */
import { type Finding, finding } from '../finding.ts';
import type { DoctorDns } from '../ports.ts';

/** Asks the MX of every control name at once. */
export async function checkResolver(dns: DoctorDns, controlNames: readonly string[]): Promise<Finding> {
  if (controlNames.length === 0) {
    return finding(
      'resolver',
      'skipped',
      'No control name is configured (MAILVET_DNS_CONTROL_NAMES is empty): the resolver is not checked.',
      {},
    );
  }
  const answers = await Promise.all(
    controlNames.map(async (name) => {
      const answer = await dns.resolveMx(name);
      const ok = answer.kind === 'ok' && answer.records.length > 0;
      return { name, ok, answer: ok ? 'MX found' : answer.kind === 'error' ? answer.failure : answer.kind };
    }),
  );
  const failed = answers.filter((answer) => !answer.ok);
  const details = { controls: answers };
  const said = failed.map((answer) => `${answer.name}: ${answer.answer}`).join(', ');
  if (failed.length === answers.length) {
    return finding(
      'resolver',
      'fail',
      `The DNS resolver answers none of its control queries (${said}): lookups cannot be trusted, and verifications end in dns_error.`,
      details,
      'Check MAILVET_DNS_SERVERS (or the system resolver in /etc/resolv.conf): the server must be reachable over UDP and TCP port 53 and resolve public names.',
    );
  }
  if (failed.length > 0) {
    return finding(
      'resolver',
      'warn',
      `The DNS resolver answers, but not every control query (${said}).`,
      details,
      "One name failing may be that provider's trouble; if it persists, check MAILVET_DNS_CONTROL_NAMES and the resolver.",
    );
  }
  return finding(
    'resolver',
    'pass',
    `The DNS resolver answers its control queries (${controlNames.join(', ')}).`,
    details,
  );
}
