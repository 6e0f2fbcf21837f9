/**
 * DMARC (RFC 7489): one `v=DMARC1` record at `_dmarc.<domain>` whose policy rejects or quarantines
 * mail that fails SPF and DKIM alignment, applied to all of it (`pct`), with aggregate reports sent
 * somewhere (`rua`) and a subdomain policy (`sp`) no weaker than the domain's.
 */

import { parseTagList, recordsWithVersion, txtRecords } from '../../mail-auth/tag-list.ts';
import { type SenderFinding, senderFinding } from '../finding.ts';
import type { SenderDns } from '../ports.ts';

/** The policy as read, for the BIMI check (BIMI needs an enforcing DMARC policy). */
export interface DmarcPolicy {
  policy: 'none' | 'quarantine' | 'reject';
  pct: number;
}

const POLICIES = new Set(['none', 'quarantine', 'reject']);
const STRENGTH = { none: 0, quarantine: 1, reject: 2 } as const;

/** The DMARC findings, and the policy when the record is usable. */
export async function checkDmarc(
  dns: SenderDns,
  domain: string,
): Promise<{ findings: SenderFinding[]; policy: DmarcPolicy | null }> {
  const name = `_dmarc.${domain}`;
  const records = txtRecords(await dns.resolveTxt(name));
  const starter = `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}`;
  if (records === null) {
    return {
      findings: [
        senderFinding(
          'dmarc',
          'dmarc_lookup_failed',
          'warn',
          `The DMARC record of ${domain} could not be looked up (${name}).`,
          'Check that the DNS servers of the domain answer; run the check again later.',
        ),
      ],
      policy: null,
    };
  }
  const found = recordsWithVersion(records, 'DMARC1');
  if (found.length === 0) {
    return {
      findings: [
        senderFinding(
          'dmarc',
          'dmarc_missing',
          'fail',
          `${domain} publishes no DMARC record: anyone can send mail in its name, and Gmail and Yahoo require one from bulk senders.`,
          `Publish a TXT record at ${name}: "${starter}". Read the reports for a few weeks, then move to p=quarantine and p=reject.`,
          { name },
        ),
      ],
      policy: null,
    };
  }
  if (found.length > 1) {
    return {
      findings: [
        senderFinding(
          'dmarc',
          'dmarc_multiple_records',
          'fail',
          `${name} holds ${found.length} DMARC records: receivers then apply none of them (RFC 7489 §6.6.3).`,
          'Keep exactly one v=DMARC1 record there, merging the tags you need.',
          { name, records: found },
        ),
      ],
      policy: null,
    };
  }
  const record = found[0]!;
  const parsed = parseTagList(record);
  const p = typeof parsed === 'string' ? undefined : parsed.tags.get('p')?.toLowerCase();
  if (typeof parsed === 'string' || p === undefined || !POLICIES.has(p)) {
    const why =
      typeof parsed === 'string' ? parsed : p === undefined ? 'it has no p= tag' : `p=${p} is not a policy`;
    return {
      findings: [
        senderFinding(
          'dmarc',
          'dmarc_syntax',
          'fail',
          `The DMARC record of ${domain} cannot be used: ${why}.`,
          `Correct it: "v=DMARC1; p=none|quarantine|reject; rua=mailto:…" with "v=DMARC1" first and p= second.`,
          { name, record },
        ),
      ],
      policy: null,
    };
  }
  const tags = parsed.tags;
  const policy = p as DmarcPolicy['policy'];
  const pct = tags.has('pct') ? Number(tags.get('pct')) : 100;
  const sp = tags.get('sp')?.toLowerCase();
  const details = {
    name,
    record,
    policy,
    pct,
    subdomain_policy: sp ?? policy,
    rua: tags.get('rua') ?? null,
    ruf: tags.get('ruf') ?? null,
    adkim: tags.get('adkim')?.toLowerCase() ?? 'r',
    aspf: tags.get('aspf')?.toLowerCase() ?? 'r',
  };
  const findings: SenderFinding[] = [];
  if (policy === 'none') {
    findings.push(
      senderFinding(
        'dmarc',
        'dmarc_policy_none',
        'warn',
        `The DMARC policy of ${domain} is p=none: failing mail is only reported, never stopped, so the domain can still be spoofed.`,
        'Once the aggregate reports show all your own mail passing, change p=none to p=quarantine, then to p=reject.',
        details,
      ),
    );
  }
  if (!Number.isInteger(pct) || pct < 0 || pct > 100) {
    findings.push(
      senderFinding(
        'dmarc',
        'dmarc_syntax',
        'fail',
        `pct=${tags.get('pct')} is not a percentage from 0 to 100.`,
        'Remove pct= (it defaults to 100) or give an integer from 0 to 100.',
        details,
      ),
    );
  } else if (pct < 100 && policy !== 'none') {
    findings.push(
      senderFinding(
        'dmarc',
        'dmarc_partial_pct',
        'warn',
        `pct=${pct}: the p=${policy} policy applies to ${pct}% of failing mail only; the rest is treated as p=none.`,
        'Raise pct to 100 (or remove pct=) once the reports show your own mail passing.',
        details,
      ),
    );
  }
  if (sp !== undefined && POLICIES.has(sp) && STRENGTH[sp as DmarcPolicy['policy']] < STRENGTH[policy]) {
    findings.push(
      senderFinding(
        'dmarc',
        'dmarc_weak_subdomain_policy',
        'warn',
        `The subdomain policy sp=${sp} is weaker than p=${policy}: mail from made-up subdomains of ${domain} is not stopped.`,
        `Remove sp= (subdomains then follow p=${policy}) or set sp=${policy}.`,
        details,
      ),
    );
  }
  if (!tags.has('rua')) {
    findings.push(
      senderFinding(
        'dmarc',
        'dmarc_no_rua',
        'warn',
        `The DMARC record of ${domain} has no rua= tag: nobody receives the aggregate reports that show who sends as ${domain} and what fails.`,
        `Add "rua=mailto:dmarc-reports@${domain}" (a mailbox you read, or a DMARC report service's address).`,
        details,
      ),
    );
  } else if (!/^\s*(mailto:|https?:)/i.test(tags.get('rua')!)) {
    findings.push(
      senderFinding(
        'dmarc',
        'dmarc_bad_rua',
        'warn',
        `rua=${tags.get('rua')} is not a mailto: address: reports cannot be sent.`,
        'Write it as "rua=mailto:reports@example.com" (several separated by commas).',
        details,
      ),
    );
  }
  if (tags.has('ruf')) {
    findings.push(
      senderFinding(
        'dmarc',
        'dmarc_ruf',
        'info',
        'The record asks for failure reports (ruf=): few receivers send them, and those that do include message content, so treat that mailbox as sensitive.',
        null,
        details,
      ),
    );
  }
  const strict = (['adkim', 'aspf'] as const).filter((tag) => details[tag] === 's');
  if (strict.length > 0) {
    findings.push(
      senderFinding(
        'dmarc',
        'dmarc_strict_alignment',
        'info',
        `Strict alignment (${strict.map((tag) => `${tag}=s`).join(', ')}): mail signed or sent from a subdomain (news.${domain}) fails DMARC; make sure every sender uses ${domain} itself.`,
        null,
        details,
      ),
    );
  }
  if (!findings.some((item) => item.status === 'fail' || item.status === 'warn')) {
    findings.unshift(
      senderFinding(
        'dmarc',
        'dmarc_ok',
        'pass',
        `${domain} publishes DMARC with p=${policy} on ${pct}% of mail, reports to ${details.rua}.`,
        null,
        details,
      ),
    );
  }
  return { findings, policy: { policy, pct: Number.isInteger(pct) ? pct : 100 } };
}
