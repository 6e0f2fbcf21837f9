/**
 * The result's evidence and the catch-all seam, from hand-made reports: what each stage learnt
 * shows up, nothing is claimed where a stage did not run, reply texts are made one bounded line,
 * and a catch-all assessment (when one is attached) sets the confidence, the signals and the
 * score within its band, while without one the score is the flat default.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_EVIDENCE_MESSAGE, noEvidence, replyEvidence } from '../../src/verification/evidence.ts';
import type { CatchAllAssessment, DnsCheck, SmtpCheck } from '../../src/verification/report.ts';
import { toVerificationResult } from '../../src/verification/result.ts';
import { BASE_SCORES, CATCH_ALL_BAND, MODIFIERS, scoreReport } from '../../src/verification/scoring.ts';
import { type ReportChange, report, smtp } from './report-builder.ts';

const resultOf = (change: ReportChange = {}) => {
  const built = report(change);
  return toVerificationResult(built, scoreReport(built));
};

const GOOGLE_MX: DnsCheck = { outcome: 'mx', mxHosts: [{ exchange: 'aspmx.l.google.com', priority: 1 }] };

function probed(change: Partial<SmtpCheck>): SmtpCheck {
  return { ...smtp('deliverable', false), ...change };
}

describe('evidence', () => {
  it('a confirmed mailbox: the host, its address, the 250 and the catch-all probe that ran', () => {
    const { evidence } = resultOf({
      dns: GOOGLE_MX,
      smtp: probed({
        mxHost: 'aspmx.l.google.com.',
        mxAddress: '192.0.2.25',
        reply: { code: 250, enhanced: '2.1.5', text: 'OK  gsmtp' },
        catchAllProbe: {
          ran: true,
          outcome: 'rejected',
          reply: {
            code: 550,
            enhanced: '5.1.1',
            text: 'The email account that you tried to reach does not exist.',
          },
        },
      }),
    });
    assert.deepEqual(evidence, {
      mx_host: 'aspmx.l.google.com',
      mx_address: '192.0.2.25',
      provider: { id: 'google', name: 'Google (Gmail, Google Workspace)', kind: 'mailbox_host' },
      smtp_reply: { code: 250, enhanced_code: '2.1.5', message: 'OK gsmtp' },
      catch_all_probe: {
        ran: true,
        outcome: 'rejected',
        reply: {
          code: 550,
          enhanced_code: '5.1.1',
          message: 'The email account that you tried to reach does not exist.',
        },
      },
      catch_all_signals: [],
    });
  });

  it('a remembered catch-all verdict: the probe did not run here, its outcome is still told', () => {
    const { evidence } = resultOf({
      smtp: probed({ catchAll: true, catchAllProbe: { ran: false, outcome: 'accepted', reply: null } }),
    });
    assert.deepEqual(evidence.catch_all_probe, { ran: false, outcome: 'accepted', reply: null });
  });

  it('no probe made (probing off): no host or reply, yet the provider from the MX names', () => {
    const result = resultOf({
      dns: GOOGLE_MX,
      smtp: { ...smtp('skipped', null, 'probe_skipped'), mxHost: null, mxAddress: null },
    });
    assert.equal(result.evidence.mx_host, null);
    assert.equal(result.evidence.mx_address, null);
    assert.equal(result.evidence.smtp_reply, null);
    assert.equal(result.evidence.provider?.id, 'google');
    assert.deepEqual(result.evidence.catch_all_probe, { ran: false, outcome: null, reply: null });
  });

  it('syntax invalid, NXDOMAIN, null MX, our DNS failure: nothing learnt, nothing claimed', () => {
    const changes: ReportChange[] = [
      { syntax: { valid: false, error: 'no_at_sign', message: 'x' }, dns: null, smtp: null },
      { dns: { outcome: 'nxdomain' }, smtp: null },
      { dns: { outcome: 'null_mx' }, smtp: null },
      { dns: { outcome: 'error', failure: 'timeout', retry: true }, smtp: null },
    ];
    for (const change of changes) {
      const result = resultOf(change);
      assert.deepEqual(result.evidence, noEvidence(), result.reason);
      assert.equal(result.checks.catch_all_confidence, null);
    }
  });

  it('a greylisted probe keeps the 4xx that decided and the host that said it', () => {
    const { evidence } = resultOf({
      smtp: probed({
        verdict: 'unknown',
        catchAll: null,
        unknownReason: 'greylisted',
        mxHost: 'mx.example.com',
        reply: { code: 451, enhanced: '4.7.1', text: 'Greylisted, please retry in 300 seconds' },
        catchAllProbe: null,
      }),
    });
    assert.deepEqual(evidence.smtp_reply, {
      code: 451,
      enhanced_code: '4.7.1',
      message: 'Greylisted, please retry in 300 seconds',
    });
    assert.deepEqual(evidence.catch_all_probe, { ran: false, outcome: null, reply: null });
  });
});

describe('replyEvidence', () => {
  it('one line: CR, LF, tabs and other controls become single spaces', () => {
    const reply = replyEvidence({
      code: 550,
      enhanced: '5.1.1',
      text: 'The email account that you tried to reach does not exist.\nPlease try\r\n\tdouble-checking\u0000 it.',
    });
    assert.equal(
      reply?.message,
      'The email account that you tried to reach does not exist. Please try double-checking it.',
    );
    assert.doesNotMatch(reply?.message ?? '', /[\r\n\t\u0000]/);
  });

  it('bounded: a long text is cut with an ellipsis, never inside a surrogate pair', () => {
    const long = replyEvidence({ code: 550, enhanced: null, text: 'x'.repeat(5000) });
    assert.equal(long?.message.length, MAX_EVIDENCE_MESSAGE);
    assert.ok(long?.message.endsWith('…'));
    // A pair (U+1F600) straddling the cut: the half is dropped, not kept alone.
    const emoji = replyEvidence({
      code: 550,
      enhanced: null,
      text: `${'y'.repeat(MAX_EVIDENCE_MESSAGE - 2)}😀😀`,
    });
    assert.ok((emoji?.message.length ?? 0) <= MAX_EVIDENCE_MESSAGE);
    assert.doesNotMatch(emoji?.message ?? '', /[\ud800-\udbff](?![\udc00-\udfff])/);
    assert.equal(replyEvidence(null), null);
  });

  it('keeps the code and the enhanced code as the server gave them', () => {
    assert.deepEqual(replyEvidence({ code: 250, enhanced: null, text: 'Ok' }), {
      code: 250,
      enhanced_code: null,
      message: 'Ok',
    });
  });
});

describe('the catch-all seam', () => {
  const catchAllProbe = smtp('catch_all', true);
  const assessment = (confidence: number): CatchAllAssessment => ({
    confidence,
    signals: [
      {
        signal: 'local_part_pattern',
        weight: 20,
        detail: 'jane.doe matches first.last, the domain’s pattern',
      },
      { signal: 'provider_kind', weight: -10, detail: 'the MX is a security gateway' },
    ],
  });

  it('without an assessment: confidence null, no signals, the flat catch-all score', () => {
    const result = resultOf({ smtp: catchAllProbe });
    assert.equal(result.checks.catch_all_confidence, null);
    assert.deepEqual(result.evidence.catch_all_signals, []);
    assert.equal(result.score, BASE_SCORES.catchAll);
    assert.equal(result.score, 70);
    assert.equal(result.status, 'PROBABLY_VALID');
  });

  it('with one: the confidence and its signals are shown, the score moves within the band', () => {
    const high = resultOf({ smtp: catchAllProbe, catchAllAssessment: assessment(100) });
    assert.equal(high.checks.catch_all_confidence, 100);
    assert.equal(high.score, CATCH_ALL_BAND.high);
    assert.deepEqual(high.evidence.catch_all_signals, assessment(100).signals);
    assert.deepEqual([high.status, high.reason], ['PROBABLY_VALID', 'catch_all']);

    const low = resultOf({ smtp: catchAllProbe, catchAllAssessment: assessment(0) });
    assert.equal(low.checks.catch_all_confidence, 0);
    assert.equal(low.score, CATCH_ALL_BAND.low);

    const middle = resultOf({ smtp: catchAllProbe, catchAllAssessment: assessment(50) });
    assert.equal(middle.score, Math.round((CATCH_ALL_BAND.low + CATCH_ALL_BAND.high) / 2));
    assert.ok(low.score < middle.score && middle.score < high.score);
  });

  it('the band stays below a confirmed mailbox and the modifiers still apply', () => {
    assert.ok(CATCH_ALL_BAND.high < BASE_SCORES.confirmedCatchAllUnknown);
    const typo = resultOf({
      smtp: catchAllProbe,
      catchAllAssessment: assessment(100),
      suggestions: ['jane@example.org'],
    });
    assert.equal(typo.score, CATCH_ALL_BAND.high + MODIFIERS.typoSuggestion);
  });

  it('a confidence out of range or fractional is clamped and rounded; one that is not a number is none', () => {
    assert.equal(
      resultOf({ smtp: catchAllProbe, catchAllAssessment: assessment(140) }).checks.catch_all_confidence,
      100,
    );
    assert.equal(
      resultOf({ smtp: catchAllProbe, catchAllAssessment: assessment(-3) }).checks.catch_all_confidence,
      0,
    );
    assert.equal(
      resultOf({ smtp: catchAllProbe, catchAllAssessment: assessment(66.6) }).checks.catch_all_confidence,
      67,
    );
    const broken = resultOf({ smtp: catchAllProbe, catchAllAssessment: assessment(Number.NaN) });
    assert.equal(broken.checks.catch_all_confidence, null);
    assert.equal(broken.score, BASE_SCORES.catchAll);
  });

  it('an assessment never changes a rule that is not the catch-all one', () => {
    const rejected = resultOf({ smtp: smtp('undeliverable'), catchAllAssessment: assessment(100) });
    assert.deepEqual([rejected.status, rejected.score], ['INVALID', BASE_SCORES.mailboxRejected]);
    const role = resultOf({
      smtp: catchAllProbe,
      lists: { roleBased: true },
      catchAllAssessment: assessment(0),
    });
    assert.deepEqual([role.status, role.score], ['ROLE_BASED', BASE_SCORES.roleBased]);
  });
});
