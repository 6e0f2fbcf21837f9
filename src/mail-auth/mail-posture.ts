/**
 * A domain's mail posture as the catch-all model reads it: its SPF record's ending and its DMARC
 * policy, from two TXT lookups. A domain nobody configures for mail is more often parked or
 * neglected; that is all this tells, so it reads records without evaluating them.
 */
import type { MailPosture } from '../verification/catch-all/types.ts';
import type { DnsAnswer } from '../verification/ports.ts';
import { parseSpfRecord, pickSpfRecord } from './spf/record.ts';
import { parseTagList, recordsWithVersion, txtRecords } from './tag-list.ts';

/** The one lookup the posture needs. */
export interface PostureDns {
  /** TXT strings of `name`, each record's chunks joined. */
  resolveTxt(name: string): Promise<DnsAnswer<string[]>>;
}

/** The domain's SPF and DMARC as the model's values; null when either lookup failed. */
export async function lookUpMailPosture(dns: PostureDns, domain: string): Promise<MailPosture | null> {
  const [spfTxt, dmarcTxt] = await Promise.all([
    dns.resolveTxt(domain).then(txtRecords),
    dns.resolveTxt(`_dmarc.${domain}`).then(txtRecords),
  ]);
  if (spfTxt === null || dmarcTxt === null) return null;
  return { spf: spfPosture(spfTxt), dmarc: dmarcPosture(dmarcTxt) };
}

/** `absent`, `invalid` (several records or one that does not parse), `permissive` or `sane`. */
export function spfPosture(txt: readonly string[]): MailPosture['spf'] {
  const picked = pickSpfRecord(txt);
  if (picked.kind === 'none') return 'absent';
  if (picked.kind === 'many') return 'invalid';
  const record = parseSpfRecord(picked.text);
  if (typeof record === 'string') return 'invalid';
  const all = record.mechanisms.find((mechanism) => mechanism.kind === 'all');
  if (all === undefined) return record.redirect === null ? 'permissive' : 'sane';
  return all.qualifier === '-' || all.qualifier === '~' ? 'sane' : 'permissive';
}

/** The `p=` of the one valid `v=DMARC1` record, or `absent` (none, several, or unreadable). */
export function dmarcPosture(txt: readonly string[]): MailPosture['dmarc'] {
  const found = recordsWithVersion(txt, 'DMARC1');
  if (found.length !== 1) return 'absent';
  const parsed = parseTagList(found[0]!);
  if (typeof parsed === 'string') return 'absent';
  const policy = parsed.tags.get('p')?.toLowerCase();
  return policy === 'none' || policy === 'quarantine' || policy === 'reject' ? policy : 'absent';
}
