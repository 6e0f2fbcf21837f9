/**
 * The local part of an RFC 5321 Mailbox: Dot-string or Quoted-string, with RFC 6531's UTF-8
 * extension. One linear scan; the Unicode policy runs only when non-ASCII characters are present.
 */

/** Longest local part, in UTF-8 octets (RFC 5321 §4.5.3.1.1). */
export const MAX_LOCAL_PART_OCTETS = 64;

/** What a valid local part is. */
export interface LocalPartShape {
  /** A Quoted-string rather than a Dot-string. */
  quoted: boolean;
  /** Holds non-ASCII characters (RFC 6531, needs SMTPUTF8). */
  internationalized: boolean;
  /** Length in UTF-8 octets, quotes and backslashes included. */
  octets: number;
}

/** Why a local part is not valid. */
export type LocalPartProblem =
  | 'dot_at_edge'
  | 'consecutive_dots'
  | 'bad_character'
  | 'text_after_quoted_string'
  | 'unclosed_quoted_string'
  | 'bad_quoted_pair'
  | 'bad_code_point';

const DOT = 0x2e;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** atext (RFC 5322 §3.2.3): letters, digits and ``!#$%&'*+-/=?^_`{|}~``. */
const ATEXT = new Uint8Array(128);
for (const c of "!#$%&'*+-/=?^_`{|}~") ATEXT[c.charCodeAt(0)] = 1;
for (let c = 0x30; c <= 0x39; c++) ATEXT[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) ATEXT[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) ATEXT[c] = 1;

/**
 * Code points a mailbox name should never hold, even where RFC 6531 allows UTF8-non-ascii: controls,
 * format characters (bidi overrides, zero-width space), surrogates (a lone one means broken input),
 * private use, unassigned and noncharacters, separators other than the ASCII space, and U+FFFD,
 * the mark of a decoding error upstream. The same policy as python-email-validator's unsafe
 * characters. A single character class: linear, no backtracking.
 */
const UNSAFE_CODE_POINT = /(?! )[\p{C}\p{Z}\uFFFD]/u;
/** A combining mark cannot start a local part: it would combine with what precedes it. */
const LEADING_MARK = /^\p{M}/u;

/** UTF-8 length of a string whose surrogates are paired (unpaired ones count 3, as U+FFFD would). */
export function utf8Length(text: string): number {
  let octets = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) octets += 1;
    else if (c < 0x800) octets += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        octets += 4;
        i++;
      } else octets += 3;
    } else octets += 3;
  }
  return octets;
}

/** qtextSMTP (RFC 5321 §4.1.2): printable ASCII and space, except `"` and `\`. */
function isQtext(c: number): boolean {
  return c >= 32 && c <= 126 && c !== QUOTE && c !== BACKSLASH;
}

function scanDotString(local: string): LocalPartShape | LocalPartProblem {
  let afterDot = true;
  let nonAscii = false;
  for (let i = 0; i < local.length; i++) {
    const c = local.charCodeAt(i);
    if (c === DOT) {
      if (afterDot) return i === 0 ? 'dot_at_edge' : 'consecutive_dots';
      afterDot = true;
      continue;
    }
    afterDot = false;
    if (c >= 128) nonAscii = true;
    else if (ATEXT[c] === 0) return 'bad_character';
  }
  if (afterDot) return 'dot_at_edge';
  if (!nonAscii) return { quoted: false, internationalized: false, octets: local.length };
  if (UNSAFE_CODE_POINT.test(local) || LEADING_MARK.test(local)) return 'bad_code_point';
  return { quoted: false, internationalized: true, octets: utf8Length(local) };
}

function scanQuotedString(local: string): LocalPartShape | LocalPartProblem {
  let nonAscii = false;
  for (let i = 1; i < local.length; i++) {
    const c = local.charCodeAt(i);
    if (c === QUOTE) {
      if (i !== local.length - 1) return 'text_after_quoted_string';
      if (!nonAscii) return { quoted: true, internationalized: false, octets: local.length };
      if (UNSAFE_CODE_POINT.test(local)) return 'bad_code_point';
      return { quoted: true, internationalized: true, octets: utf8Length(local) };
    }
    if (c === BACKSLASH) {
      // quoted-pairSMTP: a backslash and one printable ASCII character or space, never UTF-8.
      const escaped = local.charCodeAt(i + 1);
      if (!(escaped >= 32 && escaped <= 126)) return 'bad_quoted_pair';
      i++;
    } else if (c >= 128) nonAscii = true;
    else if (!isQtext(c)) return 'bad_character';
  }
  return 'unclosed_quoted_string';
}

/**
 * Checks a local part: a Dot-string of atext (plus UTF-8, RFC 6531) or a Quoted-string of
 * qtextSMTP and quoted-pairSMTP. No comments or folding white space: a mailbox has none.
 */
export function scanLocalPart(local: string): LocalPartShape | LocalPartProblem {
  return local.charCodeAt(0) === QUOTE ? scanQuotedString(local) : scanDotString(local);
}
