/**
 * MTA-STS (RFC 8461): a `v=STSv1; id=…` record at `_mta-sts.<domain>`, and a policy served over
 * HTTPS at `https://mta-sts.<domain>/.well-known/mta-sts.txt` (valid certificate, no redirects)
 * whose mode is enforce, whose max_age is at least a day, and whose `mx:` patterns cover every
 * real MX host — a policy that leaves one out makes senders refuse to deliver there.
 */

import { parseTagList, recordsWithVersion, txtRecords } from '../../mail-auth/tag-list.ts';
import { listWords, type SenderFinding, senderFinding } from '../finding.ts';
import type { MtaStsPolicyFetcher, SenderDns } from '../ports.ts';

/** A policy file as read. */
export interface MtaStsPolicy {
  version: string | null;
  mode: string | null;
  maxAge: number | null;
  mx: string[];
}

/** Reads the `key: value` lines of a policy file (RFC 8461 §3.2). */
export function parsePolicy(body: string): MtaStsPolicy {
  const policy: MtaStsPolicy = { version: null, mode: null, maxAge: null, mx: [] };
  for (const line of body.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'version') policy.version = value;
    else if (key === 'mode') policy.mode = value.toLowerCase();
    else if (key === 'max_age') policy.maxAge = /^\d{1,10}$/.test(value) ? Number(value) : null;
    else if (key === 'mx') policy.mx.push(value.toLowerCase().replace(/\.$/, ''));
  }
  return policy;
}

/** Whether an MX host matches a policy pattern (`*.example.com` covers one leftmost label). */
export function mxMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) {
    const suffix = pattern.slice(1);
    return (
      host.endsWith(suffix) && !host.slice(0, -suffix.length).includes('.') && host.length > suffix.length
    );
  }
  return host === pattern;
}

/** The MTA-STS findings, given the domain's real MX hosts. */
export async function checkMtaSts(
  dns: SenderDns,
  fetcher: MtaStsPolicyFetcher,
  domain: string,
  mxHosts: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<SenderFinding[]> {
  const name = `_mta-sts.${domain}`;
  const records = txtRecords(await dns.resolveTxt(name));
  if (records === null)
    return [
      senderFinding(
        'mta_sts',
        'mta_sts_lookup_failed',
        'warn',
        `The MTA-STS record ${name} could not be looked up.`,
        'Run the check again later.',
      ),
    ];
  const found = recordsWithVersion(records, 'STSv1');
  if (found.length === 0) {
    return [
      senderFinding(
        'mta_sts',
        'mta_sts_missing',
        'info',
        `${domain} publishes no MTA-STS policy: senders deliver to it over TLS when they can, but an attacker on the path can strip STARTTLS unnoticed.`,
        `To require TLS: serve a policy at https://mta-sts.${domain}/.well-known/mta-sts.txt ("version: STSv1", "mode: testing", "mx: <each MX host>", "max_age: 604800"), then publish "v=STSv1; id=<a new value per change>" at ${name}; move to mode: enforce once TLS reports are clean.`,
        { name },
      ),
    ];
  }
  const parsed = parseTagList(found[0]!);
  const id = typeof parsed === 'string' ? undefined : parsed.tags.get('id');
  const findings: SenderFinding[] = [];
  if (found.length > 1 || id === undefined || !/^[A-Za-z0-9]{1,32}$/.test(id)) {
    findings.push(
      senderFinding(
        'mta_sts',
        'mta_sts_bad_record',
        'fail',
        found.length > 1
          ? `${name} holds ${found.length} STSv1 records: senders ignore them all.`
          : `The record at ${name} has no valid id= (1 to 32 letters and digits).`,
        `Publish exactly one record at ${name}: "v=STSv1; id=20240101T000000" (change the id whenever the policy changes).`,
        { name, records: found },
      ),
    );
  }
  const fetched = await fetcher.fetchPolicy(domain, timeoutMs, signal);
  const url = `https://mta-sts.${domain}/.well-known/mta-sts.txt`;
  if (fetched.kind === 'failed') {
    findings.push(
      senderFinding(
        'mta_sts',
        'mta_sts_policy_unreachable',
        'fail',
        `The MTA-STS record exists but the policy at ${url} could not be fetched (${fetched.failure}: ${fetched.detail}): senders treat the domain as having no policy.`,
        `Serve the policy file at ${url} over HTTPS with a valid certificate for mta-sts.${domain}, answering 200 with Content-Type text/plain and no redirect.`,
        { url, failure: fetched.failure },
      ),
    );
    return findings;
  }
  const policy = parsePolicy(fetched.body);
  const details = { url, policy, mx_hosts: mxHosts };
  if (
    policy.version !== 'STSv1' ||
    policy.mode === null ||
    !['enforce', 'testing', 'none'].includes(policy.mode) ||
    policy.maxAge === null ||
    policy.mx.length === 0
  ) {
    findings.push(
      senderFinding(
        'mta_sts',
        'mta_sts_bad_policy',
        'fail',
        `The MTA-STS policy at ${url} is not valid: it needs "version: STSv1", "mode: enforce|testing|none", "max_age: <seconds>" and at least one "mx:" line.`,
        'Correct the policy file: one "key: value" per line, as RFC 8461 §3.2 shows.',
        details,
      ),
    );
    return findings;
  }
  const uncovered = mxHosts.filter((host) => !policy.mx.some((pattern) => mxMatches(host, pattern)));
  if (uncovered.length > 0) {
    findings.push(
      senderFinding(
        'mta_sts',
        'mta_sts_mx_mismatch',
        policy.mode === 'enforce' ? 'fail' : 'warn',
        `The MTA-STS policy does not cover the MX host${uncovered.length === 1 ? '' : 's'} ${listWords(uncovered)} (its mx: lines: ${policy.mx.join(', ')})${policy.mode === 'enforce' ? ': senders that honour it refuse to deliver there' : ''}.`,
        `Add an "mx: ${uncovered[0]}" line (or a matching "*." pattern) for each MX host to the policy, and change the id= of ${name}.`,
        { ...details, uncovered },
      ),
    );
  }
  if (policy.mode === 'testing') {
    findings.push(
      senderFinding(
        'mta_sts',
        'mta_sts_testing',
        'info',
        'The MTA-STS policy is in testing mode: failures are reported (with TLS-RPT) but mail is still delivered without TLS.',
        null,
        details,
      ),
    );
  } else if (policy.mode === 'none') {
    findings.push(
      senderFinding(
        'mta_sts',
        'mta_sts_mode_none',
        'warn',
        'The MTA-STS policy has mode: none: it protects nothing (the mode for withdrawing a policy).',
        'Set mode: testing, then mode: enforce, and change the id= of the record.',
        details,
      ),
    );
  }
  if (policy.maxAge < 86_400) {
    findings.push(
      senderFinding(
        'mta_sts',
        'mta_sts_short_max_age',
        'warn',
        `The MTA-STS policy's max_age is ${policy.maxAge} s: senders forget it within a day, leaving gaps an attacker can use.`,
        'Set max_age to at least 604800 (a week); RFC 8461 suggests weeks (up to 31557600).',
        details,
      ),
    );
  }
  if (!findings.some((item) => item.status === 'fail' || item.status === 'warn')) {
    findings.unshift(
      senderFinding(
        'mta_sts',
        'mta_sts_ok',
        'pass',
        `${domain} publishes an MTA-STS policy (mode ${policy.mode}, max_age ${policy.maxAge} s) covering every MX host.`,
        null,
        details,
      ),
    );
  }
  return findings;
}
