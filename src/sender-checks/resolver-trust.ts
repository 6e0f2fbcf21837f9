/**
 * Whether the resolver the checks ask can be believed. A resolver that answers "no such domain"
 * for everything (a captive portal, a filtering resolver, a misconfigured MAILVET_DNS_SERVERS)
 * would make every domain "publish no SPF", "have no MX" and be "not listed", a confident grade F
 * that is all wrong. So the checks also ask the MX of control names that must exist
 * (MAILVET_DNS_CONTROL_NAMES, the names the verifier and `mailvet doctor` already trust their
 * resolver by, which an operator on a private network can point at names of their own): when not
 * one of them has an MX, nothing else the resolver said is worth a grade.
 */
import { type SenderFinding, senderFinding } from './finding.ts';
import type { SenderDns } from './ports.ts';

/** What one control name got. */
export interface ControlAnswer {
  name: string;
  /** `MX found`, or what came instead (`nxdomain`, `nodata`, `timeout`, `servfail`...). */
  answer: string;
}

/** The verdict: trusted when a control name has an MX (or none is configured: the check is off). */
export interface ResolverTrust {
  trusted: boolean;
  controls: ControlAnswer[];
}

/**
 * Asks the MX of every control name at once and settles as soon as one has an MX (a healthy
 * resolver costs the checks no wait), or once all have failed.
 */
export function resolverTrust(dns: SenderDns, controlNames: readonly string[]): Promise<ResolverTrust> {
  const names = controlNames.map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  if (names.length === 0) return Promise.resolve({ trusted: true, controls: [] });
  return new Promise((resolve) => {
    const controls: ControlAnswer[] = [];
    for (const name of names) {
      void dns
        .resolveMx(name)
        .then(
          (answer) =>
            answer.kind === 'ok' && answer.records.length > 0
              ? 'MX found'
              : answer.kind === 'error'
                ? answer.failure
                : answer.kind === 'ok'
                  ? 'nodata'
                  : answer.kind,
          () => 'error',
        )
        .then((answer) => {
          controls.push({ name, answer });
          if (answer === 'MX found') resolve({ trusted: true, controls });
          else if (controls.length === names.length) resolve({ trusted: false, controls });
        });
    }
  });
}

/** The one finding of a report made on an untrustworthy resolver: what was seen, and what to fix. */
export function untrustworthyResolver(domain: string, controls: readonly ControlAnswer[]): SenderFinding {
  const seen = controls.map((control) => `${control.name}: ${control.answer}`).join(', ');
  return senderFinding(
    'resolver',
    'resolver_untrustworthy',
    'fail',
    `The DNS resolver this service asks cannot be trusted: it finds no mail host even for names that must have one (${seen}), so what it says about ${domain} means nothing. No grade is given.`,
    "Whoever runs this Mailvet must fix its resolver: run `mailvet doctor` on the server, and set MAILVET_DNS_SERVERS to resolvers that answer public names (or fix the system's /etc/resolv.conf); MAILVET_DNS_CONTROL_NAMES are the names it must find. Then check the domain again.",
    { controls },
  );
}
