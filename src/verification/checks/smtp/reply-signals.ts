/**
 * Reads what an SMTP reply says, before any decision: its class (2-5), its enhanced status code
 * when that agrees with the class, and which phrase groups of `data/smtp-reply-phrases.json` its
 * text contains. The classifier (classify.ts) decides from this reading alone.
 */
import replyPhrases from '../../data/smtp-reply-phrases.json' with { type: 'json' };
import type { RcptVerdict, SmtpReply } from './reply.ts';
import { MAX_REPLY_TEXT } from './reply-lines.ts';

export type PhraseGroup = keyof typeof replyPhrases.groups;

/** RFC 3463 `class.subject.detail`, e.g. 5.1.1 → { subject: 1, detail: 1 }. */
export interface EnhancedCode {
  subject: number;
  detail: number;
}

/** What one reply says, in the classifier's terms. */
export interface ReplyReading {
  code: number;
  replyClass: 2 | 3 | 4 | 5;
  /** Null when absent, malformed or of another class than the reply code (RFC 3463 §2). */
  enhanced: EnhancedCode | null;
  has: Readonly<Record<PhraseGroup, boolean>>;
  /** A documented provider quirk that decides an RCPT reply outright. */
  quirk: RcptVerdict | null;
}

const GROUP_NAMES = Object.keys(replyPhrases.groups) as PhraseGroup[];

/** A phrase matches where it starts a word: `rbl` in "an RBL:" but not inside another word. */
function phraseMatcher(phrases: readonly string[]): RegExp {
  const escaped = phrases.map((p) => p.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?:^|[^a-z0-9])(?:${escaped.join('|')})`);
}

const GROUP_MATCHERS = GROUP_NAMES.map(
  (name) => [name, phraseMatcher(replyPhrases.groups[name].phrases)] as const,
);

const QUIRK_VERDICTS: Readonly<Record<string, RcptVerdict>> = {
  deliverable: { kind: 'deliverable' },
  undeliverable: { kind: 'undeliverable' },
  mailbox_full: { kind: 'mailbox_full' },
  mailbox_disabled: { kind: 'mailbox_disabled' },
  policy: { kind: 'unknown', reason: 'policy' },
  greylisted: { kind: 'unknown', reason: 'greylisted' },
};

const QUIRKS = replyPhrases.quirks.flatMap((quirk) => {
  const verdict = QUIRK_VERDICTS[quirk.verdict];
  return verdict === undefined
    ? []
    : [{ enhanced: quirk.enhanced, matcher: phraseMatcher([quirk.phrase]), verdict }];
});

const ENHANCED_CODE = /^([245])\.([0-9]{1,3})\.([0-9]{1,3})$/;
/** Tabs and the line breaks joining reply lines are fine; other controls and lone surrogates are not. */
const UNFIT_CHARACTER =
  /[\u0000-\u0008\u000b-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Reads a reply; null when it is not one a server may send (bad code, oversized or unfit text). */
export function readReply(reply: SmtpReply): ReplyReading | null {
  const { code, text } = reply;
  if (!Number.isInteger(code) || code < 200 || code > 599 || Math.floor(code / 10) % 10 > 5) return null;
  if (typeof text !== 'string' || text.length > MAX_REPLY_TEXT || UNFIT_CHARACTER.test(text)) return null;
  const replyClass = Math.floor(code / 100) as 2 | 3 | 4 | 5;
  const enhanced = usableEnhancedCode(reply.enhanced, replyClass);
  const words = wordsOf(text);
  const has = {} as Record<PhraseGroup, boolean>;
  for (const [name, matcher] of GROUP_MATCHERS) has[name] = matcher.test(words);
  const quirk = QUIRKS.find((q) => q.enhanced === reply.enhanced && q.matcher.test(words))?.verdict ?? null;
  return { code, replyClass, enhanced, has, quirk };
}

function usableEnhancedCode(enhanced: string | null, replyClass: number): EnhancedCode | null {
  if (typeof enhanced !== 'string') return null;
  const match = ENHANCED_CODE.exec(enhanced);
  if (match === null || Number(match[1]) !== replyClass) return null;
  return { subject: Number(match[2]), detail: Number(match[3]) };
}

/**
 * The text as phrases are matched: lower case, typographic apostrophes folded, and the addresses a
 * server echoes (`<blocked.user@x>`, `(someone@yahoo.com)`) removed so a local part is never read
 * as a reason. Split on white space rather than a regex over addresses, which would backtrack.
 */
export function wordsOf(text: string): string {
  const lower = text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/<[^<>]*>/g, ' ');
  return lower
    .split(/\s+/)
    .filter((token) => token.length > 0 && !token.includes('@'))
    .join(' ');
}
