/**
 * SPF record syntax (RFC 7208 §4.5, §12): picking the one `v=spf1` record of a domain and reading
 * its terms. A record that cannot be read is a permanent error of its own, not "no match".
 */

/** What a mechanism's match means (RFC 7208 §4.6.2). */
export type SpfQualifier = '+' | '-' | '~' | '?';

/** One mechanism as written. `domain` is still macro text; `cidr4`/`cidr6` default to the host. */
export type SpfMechanism =
  | { kind: 'all'; qualifier: SpfQualifier; text: string }
  | { kind: 'include' | 'exists'; qualifier: SpfQualifier; domain: string; text: string }
  | {
      kind: 'a' | 'mx';
      qualifier: SpfQualifier;
      domain: string | null;
      cidr4: number;
      cidr6: number;
      text: string;
    }
  | { kind: 'ptr'; qualifier: SpfQualifier; domain: string | null; text: string }
  | { kind: 'ip4' | 'ip6'; qualifier: SpfQualifier; network: string; prefix: number; text: string };

/** A parsed policy: its mechanisms in order and the `redirect` modifier. */
export interface SpfRecord {
  mechanisms: SpfMechanism[];
  redirect: string | null;
}

/** The domain's SPF text among its TXT strings: none, one, or (an error) several. */
export function pickSpfRecord(
  txt: readonly string[],
): { kind: 'none' } | { kind: 'one'; text: string } | { kind: 'many' } {
  const found = txt.filter((text) => /^v=spf1(\s|$)/i.test(text.trim()));
  if (found.length === 0) return { kind: 'none' };
  if (found.length > 1) return { kind: 'many' };
  return { kind: 'one', text: found[0]!.trim() };
}

const MECHANISM = /^([+\-~?]?)(all|include|exists|a|mx|ptr|ip4|ip6)(?::([^/]*))?((?:\/\d+)?(?:\/\/\d+)?)$/i;
const MODIFIER = /^([a-z][a-z0-9_.-]*)=(.*)$/i;

/** Reads a `v=spf1` record; a syntax error (the whole record is checked first) is a string. */
export function parseSpfRecord(text: string): SpfRecord | string {
  const terms = text.trim().split(/\s+/).slice(1);
  const mechanisms: SpfMechanism[] = [];
  let redirect: string | null = null;
  for (const term of terms) {
    const modifier = MODIFIER.exec(term);
    if (modifier) {
      const name = modifier[1]!.toLowerCase();
      if (name === 'redirect') {
        if (redirect !== null) return 'two redirect= modifiers';
        if (modifier[2] === '') return 'redirect= without a domain';
        redirect = modifier[2]!;
      }
      // exp= and unknown modifiers do not change the result (RFC 7208 §6).
      continue;
    }
    const mechanism = readMechanism(term);
    if (typeof mechanism === 'string') return mechanism;
    mechanisms.push(mechanism);
  }
  return { mechanisms, redirect };
}

function readMechanism(term: string): SpfMechanism | string {
  const match = MECHANISM.exec(term);
  if (!match) return `unknown term "${term}"`;
  const qualifier = (match[1] || '+') as SpfQualifier;
  const kind = match[2]!.toLowerCase() as SpfMechanism['kind'];
  const argument = match[3];
  const cidrs = match[4] ?? '';
  const cidr4 = /^\/(\d+)/.exec(cidrs)?.[1];
  const cidr6 = /\/\/(\d+)$/.exec(cidrs)?.[1];
  const text = term;
  switch (kind) {
    case 'all':
      if (argument !== undefined || cidrs !== '') return `"${term}" takes no argument`;
      return { kind, qualifier, text };
    case 'include':
    case 'exists':
      if (!argument || cidrs !== '') return `"${term}" needs a domain`;
      return { kind, qualifier, domain: argument, text };
    case 'ptr':
      if (cidrs !== '') return `"${term}" takes no prefix`;
      return { kind, qualifier, domain: argument || null, text };
    case 'a':
    case 'mx': {
      const v4 = cidr4 === undefined ? 32 : Number(cidr4);
      const v6 = cidr6 === undefined ? 128 : Number(cidr6);
      if (v4 > 32 || v6 > 128 || argument === '') return `bad "${term}"`;
      return { kind, qualifier, domain: argument ?? null, cidr4: v4, cidr6: v6, text };
    }
    default: {
      // ip4:/ip6: the address may itself contain ':' (IPv6), so it is read from the whole term.
      const body = term.replace(/^[+\-~?]?ip[46]:/i, '');
      const [network, prefixText] = body.split('/') as [string, string | undefined];
      const max = kind === 'ip4' ? 32 : 128;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (
        network === '' ||
        !Number.isInteger(prefix) ||
        prefix < 0 ||
        prefix > max ||
        body.split('/').length > 2
      ) {
        return `bad "${term}"`;
      }
      return { kind: kind as 'ip4' | 'ip6', qualifier, network, prefix, text };
    }
  }
}
