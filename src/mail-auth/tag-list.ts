/**
 * The `tag=value; tag=value` records of DMARC (RFC 7489 §6.4), DKIM (RFC 6376 §3.2), MTA-STS and
 * TLS-RPT (RFC 8461, RFC 8460) and BIMI: read once here, each check interprets its own tags.
 */
import type { DnsAnswer } from '../verification/ports.ts';

/** Tags in order of appearance, names lower-cased; a repeated tag is an error. */
export function parseTagList(text: string): { tags: Map<string, string>; order: string[] } | string {
  const tags = new Map<string, string>();
  const order: string[] = [];
  for (const part of text.split(';')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const equals = trimmed.indexOf('=');
    if (equals <= 0) return `"${trimmed}" is not tag=value`;
    const name = trimmed.slice(0, equals).trim().toLowerCase();
    if (!/^[a-z][a-z0-9_]*$/.test(name)) return `"${name}" is not a tag name`;
    if (tags.has(name)) return `the tag ${name}= appears twice`;
    tags.set(name, trimmed.slice(equals + 1).trim());
    order.push(name);
  }
  return { tags, order };
}

/** The records among TXT strings whose version tag is `version` (`v=DMARC1`...), case-insensitively. */
export function recordsWithVersion(records: readonly string[], version: string): string[] {
  const start = new RegExp(`^\\s*v\\s*=\\s*${version}\\s*(;|$)`, 'i');
  return records.filter((text) => start.test(text));
}

/** The TXT records of an answer: NXDOMAIN and NODATA are none; a failed lookup is null. */
export function txtRecords(answer: DnsAnswer<string[]>): string[] | null {
  if (answer.kind === 'error') return null;
  return answer.kind === 'ok' ? answer.records : [];
}
