/**
 * How well the RCPT classifier reads real mail servers' replies: the labelled corpus in
 * tests/fixtures/smtp-reply-corpus/ run through `classifyRcptReply`, and the three figures
 * docs/conformance.md reports and tests/verification/reply-accuracy.test.ts holds floors on.
 *
 *   node --import tsx scripts/reply-accuracy.ts          # the figures
 *   node --import tsx scripts/reply-accuracy.ts --rows   # and every disagreement
 *
 * Every reply is read as an answer to RCPT TO, whatever stage its source met it at: a server may
 * send any of them there, and a false INVALID costs the same whichever it was.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyRcptReply, parseReplyLines } from '../src/verification/checks/smtp/classify.ts';
import type { RcptVerdict } from '../src/verification/checks/smtp/reply.ts';
import { wordsOf } from '../src/verification/checks/smtp/reply-signals.ts';

/** What a reply says about the mailbox, as its source's words say it. */
export type MailboxLabel = 'missing' | 'disabled' | 'full' | 'nothing';

export interface CorpusReply {
  reply: string;
  provider: string;
  label: MailboxLabel;
  about: string;
  source: string;
  source_says?: string;
  note?: string;
  /** The corpus file it came from. */
  file: string;
}

export const CORPUS_DIR = fileURLToPath(new URL('../tests/fixtures/smtp-reply-corpus/', import.meta.url));

/** Every reply of the corpus, file by file. */
export function loadReplyCorpus(dir = CORPUS_DIR): CorpusReply[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const parsed = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        replies: Omit<CorpusReply, 'file'>[];
      };
      return parsed.replies.map((reply) => ({ ...reply, file }));
    });
}

/** The reply's lines as a server sends them. */
export function replyLines(reply: string): string[] {
  return reply.split('\n');
}

export interface ReadReply extends CorpusReply {
  verdict: RcptVerdict;
  /** Its words carry another label elsewhere in the corpus: no reading of them can be right twice. */
  contested: boolean;
}

/** A reply's words alone (its parsed text): no codes, addresses, punctuation or case. */
export function wordsKey(text: string): string {
  return wordsOf(text)
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** One figure: how many of `of` came out right. */
export interface Share {
  right: number;
  of: number;
}

export interface ReplyAccuracy {
  replies: number;
  /** Replies whose words the sources label two ways; left out of the three figures. */
  contested: ReadReply[];
  byLabel: Record<MailboxLabel, number>;
  /** Replies that say nothing about the mailbox, read as undeliverable or disabled (INVALID). */
  falseInvalid: Share;
  /** Missing mailboxes read as INVALID (undeliverable, or disabled: the address is dead either way). */
  missingFound: Share;
  /** Full and disabled mailboxes named as such. */
  fullOrDisabledNamed: Share;
  /** Every reply the figures count against. */
  disagreements: ReadReply[];
  /** The three figures over every reply, contested ones included. */
  withContested: { falseInvalid: Share; missingFound: Share; fullOrDisabledNamed: Share };
}

const INVALID_KINDS = new Set<RcptVerdict['kind']>(['undeliverable', 'mailbox_disabled']);

/** Whether the verdict agrees with the label, as the three figures count agreement. */
export function agrees(label: MailboxLabel, verdict: RcptVerdict): boolean {
  switch (label) {
    case 'missing':
      return INVALID_KINDS.has(verdict.kind);
    case 'disabled':
      return verdict.kind === 'mailbox_disabled';
    case 'full':
      return verdict.kind === 'mailbox_full';
    case 'nothing':
      return !INVALID_KINDS.has(verdict.kind) && verdict.kind !== 'mailbox_full';
  }
}

export function measureReplyAccuracy(corpus: readonly CorpusReply[]): ReplyAccuracy {
  // Each reply parsed once: its words (for contested ones) and its verdict come from the same parse.
  const parsed = corpus.map((entry) => {
    const reply = parseReplyLines(replyLines(entry.reply));
    return { entry, reply, key: wordsKey(reply.text) };
  });
  const labelsOf = new Map<string, Set<MailboxLabel>>();
  for (const { entry, key } of parsed) labelsOf.set(key, (labelsOf.get(key) ?? new Set()).add(entry.label));
  const read: ReadReply[] = parsed.map(({ entry, reply, key }) => ({
    ...entry,
    verdict: classifyRcptReply(reply),
    contested: (labelsOf.get(key)?.size ?? 0) > 1,
  }));
  const uncontested = read.filter((entry) => !entry.contested);
  const count = (label: MailboxLabel) => uncontested.filter((entry) => entry.label === label).length;
  return {
    replies: read.length,
    contested: read.filter((entry) => entry.contested),
    byLabel: {
      missing: count('missing'),
      disabled: count('disabled'),
      full: count('full'),
      nothing: count('nothing'),
    },
    ...figures(uncontested),
    disagreements: read.filter((entry) => !agrees(entry.label, entry.verdict)),
    withContested: figures(read),
  };
}

function figures(read: readonly ReadReply[]) {
  const withLabel = (...labels: MailboxLabel[]) => read.filter((entry) => labels.includes(entry.label));
  const share = (entries: ReadReply[], right: (entry: ReadReply) => boolean): Share => ({
    right: entries.filter(right).length,
    of: entries.length,
  });
  return {
    falseInvalid: share(withLabel('nothing'), (entry) => INVALID_KINDS.has(entry.verdict.kind)),
    missingFound: share(withLabel('missing'), (entry) => agrees('missing', entry.verdict)),
    fullOrDisabledNamed: share(withLabel('full', 'disabled'), (entry) => agrees(entry.label, entry.verdict)),
  };
}

export const percent = ({ right, of }: Share) => (of === 0 ? 0 : (100 * right) / of);

/** The three figures, as the bench and the script print them. */
export function accuracyLines(accuracy: ReplyAccuracy): string[] {
  const line = (name: string, share: Share, all: Share, target: string) =>
    `  ${name.padEnd(46)} ${percent(share).toFixed(1).padStart(5)} %  (${share.right} of ${share.of}; target ${target}; ${percent(all).toFixed(1)} % with contested replies)`;
  const { byLabel, withContested } = accuracy;
  return [
    `${accuracy.replies} real replies; of the ${accuracy.replies - accuracy.contested.length} whose words the sources read one way: ${byLabel.missing} missing, ${byLabel.disabled} disabled, ${byLabel.full} full, ${byLabel.nothing} about something else`,
    line(
      'false INVALID on replies not about the mailbox',
      accuracy.falseInvalid,
      withContested.falseInvalid,
      '≤ 1 %',
    ),
    line('missing mailboxes found (INVALID)', accuracy.missingFound, withContested.missingFound, '≥ 98 %'),
    line(
      'full and disabled mailboxes named as such',
      accuracy.fullOrDisabledNamed,
      withContested.fullOrDisabledNamed,
      '≥ 95 %',
    ),
    `  contested (same words, two labels in the sources): ${accuracy.contested.length}`,
  ];
}

const oneLine = (reply: string) => reply.replace(/\n/g, ' ⏎ ');

function verdictText(verdict: RcptVerdict): string {
  return verdict.kind === 'unknown' ? `unknown ${verdict.reason}` : verdict.kind;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const accuracy = measureReplyAccuracy(loadReplyCorpus());
  console.log(accuracyLines(accuracy).join('\n'));
  if (process.argv.includes('--rows')) {
    console.log('\ndisagreements:');
    for (const entry of accuracy.disagreements)
      console.log(
        `  [${entry.label}${entry.contested ? ', contested' : ''}] → ${verdictText(entry.verdict)}  ${entry.provider}: ${oneLine(entry.reply)}`,
      );
    console.log('\ncontested:');
    for (const entry of accuracy.contested)
      console.log(`  [${entry.label}] ${entry.provider}: ${oneLine(entry.reply)}`);
  }
}
