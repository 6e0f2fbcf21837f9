/**
 * Turns the raw lines of one SMTP reply into an `SmtpReply`: RFC 5321 §4.2 multi-line replies
 * (`250-...` then `250 ...`) become one reply, and the RFC 2034 enhanced status code (`5.1.1`) is
 * taken from the start of the text. Anything that is not a well-formed reply comes back with
 * code 0, which the classifier reads as a protocol error; nothing here throws.
 */
import type { SmtpReply } from './reply.ts';

/**
 * RFC 5321 §4.5.3.1.5 allows 512 octets a line; real replies (Gmail, GMX) run to a few lines. A
 * reply past these bounds is broken or hostile, and its text is not worth reading further.
 */
export const MAX_REPLY_TEXT = 8192;
const MAX_REPLY_LINES = 100;

const CODE_AT_START = /^([0-9]{3})(?:[ -]|$)/;
/** `5.1.1`, `#5.1.1`, `5.1.1:` at the start of the text (RFC 3463 class.subject.detail). */
const ENHANCED_AT_START = /^\s*#?([245]\.[0-9]{1,3}\.[0-9]{1,3})(?=$|[\s:;,)\]>-]|\.(?:\s|$))/;
/** qmail and Yahoo put the code in brackets at the end: `(#5.1.1)`, `[#4.16.1]`. */
const ENHANCED_IN_BRACKETS = /[([]#?([245]\.[0-9]{1,3}\.[0-9]{1,3})[)\]]/;
/** C0 controls but TAB, DEL, and UTF-16 halves without their partner. */
const UNFIT_CHARACTER =
  /[\u0000-\u0008\u000a-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNFIT_CHARACTERS = new RegExp(UNFIT_CHARACTER.source, 'g');

/** Joins the lines of one server reply into a single `SmtpReply`; code 0 when they are not a valid reply. */
export function parseReplyLines(lines: readonly string[]): SmtpReply {
  let code = 0;
  let wellFormed = Array.isArray(lines) && lines.length > 0;
  const texts: string[] = [];
  let budget = MAX_REPLY_TEXT;
  const count = wellFormed ? lines.length : 0;
  for (let i = 0; i < count && budget > 0; i++) {
    const raw = lines[i];
    if (typeof raw !== 'string' || i >= MAX_REPLY_LINES) {
      wellFormed = false;
      break;
    }
    let line = stripLineEnd(raw);
    if (line.length > budget) {
      line = line.slice(0, budget);
      wellFormed = false;
    }
    budget -= line.length;
    if (UNFIT_CHARACTER.test(line)) wellFormed = false;
    const match = CODE_AT_START.exec(line);
    if (i === 0) {
      if (match === null) wellFormed = false;
      else code = Number(match[1]);
    } else if (match !== null && Number(match[1]) !== code) {
      // RFC 5321 §4.2.1: every line of one reply carries the same code; which one to believe?
      wellFormed = false;
    }
    // A continuation line without a code is tolerated as more text (sloppy servers do that).
    texts.push(match === null ? line : line.slice(4));
    if (budget === 0 && i + 1 < count) wellFormed = false;
  }
  if (!wellFormed) return { code: 0, enhanced: null, text: cleanText(texts) };

  const enhanced = ENHANCED_AT_START.exec(texts[0] ?? '')?.[1] ?? null;
  const body = enhanced === null ? texts : texts.map((text) => withoutLeadingCode(text, enhanced));
  const text = cleanText(body);
  return { code, enhanced: enhanced ?? ENHANCED_IN_BRACKETS.exec(text)?.[1] ?? null, text };
}

function stripLineEnd(line: string): string {
  let end = line.length;
  if (end > 0 && line.charCodeAt(end - 1) === 0x0a) end--;
  if (end > 0 && line.charCodeAt(end - 1) === 0x0d) end--;
  return end === line.length ? line : line.slice(0, end);
}

/** Gmail repeats the enhanced code on every line (`550-5.1.1 ...`); the text should not. */
function withoutLeadingCode(text: string, enhanced: string): string {
  const match = ENHANCED_AT_START.exec(text);
  return match?.[1] === enhanced ? text.slice(match[0].length) : text;
}

function cleanText(texts: readonly string[]): string {
  return texts.map((text) => text.trim().replace(UNFIT_CHARACTERS, '\ufffd')).join('\n');
}
