/**
 * SPF macro expansion (RFC 7208 §7) for domain-specs: `%{i}`, `%{d}`, `%{s}` and the others, with
 * digit and `r` transformers and delimiters. Policies such as `exists:%{i}._spf.example.com` need it.
 */
import { type IpValue, ipText } from './ip-address.ts';

/** What the macros stand for in one evaluation. */
export interface MacroContext {
  ip: IpValue;
  /** The current domain. */
  domain: string;
  /** The envelope sender (`local@domain`). */
  sender: string;
  helo: string;
}

/** Expands the macros of `spec`; a malformed macro is a string (a permanent error). */
export function expandMacros(spec: string, context: MacroContext): { name: string } | string {
  let out = '';
  for (let i = 0; i < spec.length; i++) {
    const char = spec[i];
    if (char !== '%') {
      out += char;
      continue;
    }
    const next = spec[i + 1];
    if (next === '%') out += '%';
    else if (next === '_') out += ' ';
    else if (next === '-') out += '%20';
    else if (next === '{') {
      const end = spec.indexOf('}', i);
      if (end === -1) return `unclosed macro in "${spec}"`;
      const expanded = expandOne(spec.slice(i + 2, end), context);
      if (expanded === null) return `bad macro "${spec.slice(i, end + 1)}"`;
      out += expanded;
      i = end;
      continue;
    } else return `bad "%" in "${spec}"`;
    i++;
  }
  // A name over 253 octets loses labels from the left (RFC 7208 §7.3).
  let name = out.replace(/\.$/, '');
  while (name.length > 253 && name.includes('.')) name = name.slice(name.indexOf('.') + 1);
  return { name };
}

function expandOne(body: string, context: MacroContext): string | null {
  const match = /^([slodiphcrtv])(\d*)(r?)([.\-+,/_=]*)$/i.exec(body);
  if (!match) return null;
  const letter = match[1]!.toLowerCase();
  const value = macroValue(letter, context);
  if (value === null) return null;
  const delimiters = match[4] || '.';
  let parts = value.split(new RegExp(`[${delimiters.replace(/[-\\\]^]/g, '\\$&')}]`));
  if (match[3]) parts = parts.reverse();
  if (match[2]) {
    const keep = Number(match[2]);
    if (keep === 0) return null;
    parts = parts.slice(-keep);
  }
  return parts.join('.');
}

function macroValue(letter: string, context: MacroContext): string | null {
  const at = context.sender.lastIndexOf('@');
  switch (letter) {
    case 's':
      return context.sender;
    case 'l':
      return at === -1 ? 'postmaster' : context.sender.slice(0, at);
    case 'o':
      return at === -1 ? context.sender : context.sender.slice(at + 1);
    case 'd':
      return context.domain;
    case 'i':
      return context.ip.family === 4
        ? ipText(context.ip)
        : context.ip.value.toString(16).padStart(32, '0').split('').join('.');
    case 'v':
      return context.ip.family === 4 ? 'in-addr' : 'ip6';
    case 'h':
      return context.helo;
    case 'p':
      // Validated client name: not looked up here (the lookup is discouraged); RFC 7208 allows "unknown".
      return 'unknown';
    default:
      // c, r, t exist only in exp= explanations, which are never evaluated here.
      return null;
  }
}
