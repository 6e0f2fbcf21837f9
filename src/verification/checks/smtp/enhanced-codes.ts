/**
 * What an RFC 3463 enhanced status code says a reply is about, from the IANA registry held in
 * `enhanced-status-codes.json`. A registered code decides; a generic one (X.0.0, X.1.0, X.2.0)
 * leaves the decision to the reply's words; an unregistered detail (Microsoft's 5.7.606) is read
 * as its subject's X.y.0.
 */
import registry from './enhanced-status-codes.json' with { type: 'json' };
import type { EnhancedCode } from './reply-signals.ts';

/**
 * What a code says about the recipient's mailbox: the `readings` of the registry file. `accepted`
 * (a success detail) says nothing beside a failure, so it is read as `generic`.
 */
export type CodeReading = Exclude<keyof typeof registry.readings, 'accepted'>;

const asReading = (reading: string): CodeReading =>
  reading === 'accepted' ? 'generic' : (reading as CodeReading);

const BY_CODE = new Map<string, CodeReading>(
  registry.codes.map((entry) => [entry.code, asReading(entry.reading)]),
);
const SUBJECTS = new Map(
  Object.entries(registry.subjects).map(([subject, entry]) => [
    Number(subject),
    {
      reading: asReading(entry.reading),
      otherwise: entry.otherwise === null ? null : asReading(entry.otherwise),
    },
  ]),
);

/** The registry's reading of `enhanced`; `generic` when absent or unknown to it. */
export function readingOf(enhanced: EnhancedCode | null): CodeReading {
  if (enhanced === null) return 'generic';
  return (
    BY_CODE.get(`X.${enhanced.subject}.${enhanced.detail}`) ??
    SUBJECTS.get(enhanced.subject)?.reading ??
    'generic'
  );
}

/** What a generic code's subject reads as when the words said nothing telling; null when nothing. */
export function subjectOtherwise(enhanced: EnhancedCode | null): CodeReading | null {
  return enhanced === null ? null : (SUBJECTS.get(enhanced.subject)?.otherwise ?? null);
}

const STRETCHED = new Set(
  registry.codes.filter((entry) => entry.stretched === true).map((entry) => entry.code),
);

/**
 * Whether servers are known to send the code for refusals of every kind (X.7.1, X.1.2), so that
 * words saying plainly what became of the mailbox are believed over it.
 */
export function isStretchedCode(enhanced: EnhancedCode | null): boolean {
  return enhanced !== null && STRETCHED.has(`X.${enhanced.subject}.${enhanced.detail}`);
}
