/**
 * The RCPT classifier against real mail servers' replies (tests/fixtures/smtp-reply-corpus/),
 * labelled from their sources' words before Mailvet read them. Floors: at most 1 % of replies
 * that say nothing about the mailbox read as INVALID, at least 98 % of missing mailboxes found,
 * at least 95 % of full and disabled mailboxes named as such. Every remaining disagreement is
 * listed, with why it is accepted, in docs/conformance.md.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadReplyCorpus, measureReplyAccuracy, percent } from '../../scripts/reply-accuracy.ts';

const corpus = loadReplyCorpus();
const LABELS = new Set(['missing', 'disabled', 'full', 'nothing']);
const ABOUTS = new Set([
  'mailbox',
  'sender',
  'policy',
  'content',
  'system',
  'temporary',
  'protocol',
  'accepted',
]);
const REPLY_LINE = /^[2-5][0-9]{2}([ -]|$)/;

describe('the reply corpus', () => {
  test('holds at least 300 labelled, sourced, distinct real replies', () => {
    assert.ok(corpus.length >= 300, `only ${corpus.length} replies`);
    const seen = new Set<string>();
    for (const entry of corpus) {
      const where = `${entry.file}: ${entry.reply.slice(0, 60)}`;
      assert.ok(LABELS.has(entry.label), `label ${entry.label} (${where})`);
      assert.ok(ABOUTS.has(entry.about), `about ${entry.about} (${where})`);
      assert.equal(
        entry.about === 'mailbox',
        entry.label !== 'nothing',
        `about and label disagree (${where})`,
      );
      assert.ok(entry.source.trim().length > 8, `no source (${where})`);
      assert.ok(entry.provider.trim().length > 0, `no provider (${where})`);
      for (const line of entry.reply.split('\n')) assert.match(line, REPLY_LINE, where);
      assert.ok(!seen.has(entry.reply), `duplicate (${where})`);
      seen.add(entry.reply);
    }
  });

  test('every label is represented from several providers', () => {
    for (const label of LABELS) {
      const providers = new Set(
        corpus.filter((entry) => entry.label === label).map((entry) => entry.provider),
      );
      assert.ok(providers.size >= 5, `${label}: only ${providers.size} providers`);
    }
  });
});

describe('accuracy on the corpus', () => {
  const accuracy = measureReplyAccuracy(corpus);

  test('at most 1 % of replies not about the mailbox are read as INVALID', () => {
    assert.ok(percent(accuracy.falseInvalid) <= 1, JSON.stringify(accuracy.falseInvalid));
  });

  test('at least 98 % of missing mailboxes are found', () => {
    assert.ok(percent(accuracy.missingFound) >= 98, JSON.stringify(accuracy.missingFound));
  });

  test('at least 95 % of full and disabled mailboxes are named as such', () => {
    assert.ok(percent(accuracy.fullOrDisabledNamed) >= 95, JSON.stringify(accuracy.fullOrDisabledNamed));
  });

  test('docs/conformance.md accounts for every disagreement, and for no reply that agrees now', () => {
    const docs = readFileSync(new URL('../../docs/conformance.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('## Mailbox verdicts'));
    const listed = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1] ?? '');
    const disagreeing = accuracy.disagreements.map((entry) => entry.reply.split('\n')[0] ?? '');
    for (const line of disagreeing) assert.ok(listed.includes(line), `not in docs/conformance.md: ${line}`);
    for (const line of listed)
      assert.ok(disagreeing.includes(line), `agrees now, drop it from the docs: ${line}`);
  });
});
