import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  classifyRcptReply,
  classifySessionReply,
  parseReplyLines,
  type SessionStage,
} from '../../../../src/verification/checks/smtp/classify.ts';
import type { SmtpReply } from '../../../../src/verification/checks/smtp/reply.ts';
import { MAX_REPLY_TEXT } from '../../../../src/verification/checks/smtp/reply-lines.ts';
import fixtureFile from '../../../fixtures/smtp-replies.json' with { type: 'json' };

interface Fixture {
  provider: string;
  stage: string;
  lines: string[];
  expected: { kind: string; reason?: string };
  verbatim: boolean;
  source: string;
  note?: string;
}

const fixtures: Fixture[] = fixtureFile.fixtures;
const SESSION_STAGES = new Set(['banner', 'helo', 'mail_from', 'starttls']);
const RCPT_KINDS = new Set([
  'deliverable',
  'undeliverable',
  'mailbox_full',
  'mailbox_disabled',
  'too_many_recipients',
]);
const REASONS = new Set([
  'greylisted',
  'blocked',
  'policy',
  'message_refused',
  'system_error',
  'timeout',
  'connect_failed',
  'tls_failed',
  'protocol_error',
]);

function rcpt(...lines: string[]) {
  return classifyRcptReply(parseReplyLines(lines));
}
function session(stage: SessionStage, ...lines: string[]) {
  return classifySessionReply(stage, parseReplyLines(lines));
}
const unknown = (reason: string) => ({ kind: 'unknown', reason });

describe('real replies (tests/fixtures/smtp-replies.json)', () => {
  test('the fixture file is large, sourced and well-formed', () => {
    assert.ok(fixtures.length >= 60, `only ${fixtures.length} fixtures`);
    for (const f of fixtures) {
      assert.ok(f.source.trim().length > 10, `no source for ${f.lines[0]}`);
      assert.ok(f.stage === 'rcpt' || SESSION_STAGES.has(f.stage), `bad stage ${f.stage}`);
      assert.equal(typeof f.verbatim, 'boolean');
      if (!f.verbatim) assert.ok(f.note, `paraphrased fixture without a note: ${f.lines[0]}`);
      if (f.expected.kind === 'unknown') assert.ok(REASONS.has(f.expected.reason ?? ''));
      else if (f.stage === 'rcpt') assert.ok(RCPT_KINDS.has(f.expected.kind));
      else assert.equal(f.expected.kind, 'ok');
    }
  });

  test('every large provider is represented', () => {
    const providers = fixtures.map((f) => f.provider).join(' ');
    for (const name of [
      'Gmail',
      'Outlook',
      'Yahoo',
      'iCloud',
      'GMX',
      'Mail.ru',
      'Yandex',
      'Proofpoint',
      'Mimecast',
    ]) {
      assert.ok(providers.includes(name), `no fixture for ${name}`);
    }
  });

  for (const f of fixtures) {
    test(`${f.provider} ${f.stage}: ${f.lines[0]?.slice(0, 70)}`, () => {
      const reply = parseReplyLines(f.lines);
      assert.notEqual(reply.code, 0, 'a real reply must parse');
      const verdict =
        f.stage === 'rcpt' ? classifyRcptReply(reply) : classifySessionReply(f.stage as SessionStage, reply);
      assert.deepEqual(verdict, f.expected);
    });
  }

  test('no policy or blocklist fixture is ever undeliverable', () => {
    const blockWords = /spamhaus|block ?list|blacklist|reputation|banned|blocked using/i;
    for (const f of fixtures.filter((x) => x.stage === 'rcpt' && blockWords.test(x.lines.join(' ')))) {
      assert.deepEqual(rcpt(...f.lines), unknown('blocked'), f.lines[0]);
    }
  });
});

describe('parseReplyLines', () => {
  test('joins a multi-line reply, keeps one code and strips the per-line enhanced code', () => {
    const reply = parseReplyLines([
      '550-5.1.1 The email account that you tried to reach does not exist. Please try\r\n',
      "550-5.1.1 double-checking the recipient's email address for typos or\r\n",
      '550 5.1.1 unnecessary spaces. - gsmtp\r\n',
    ]);
    assert.deepEqual(reply, {
      code: 550,
      enhanced: '5.1.1',
      text:
        'The email account that you tried to reach does not exist. Please try\n' +
        "double-checking the recipient's email address for typos or\nunnecessary spaces. - gsmtp",
    });
  });

  test('a bare code and a code with empty text are replies', () => {
    assert.deepEqual(parseReplyLines(['250']), { code: 250, enhanced: null, text: '' });
    assert.deepEqual(parseReplyLines(['250 ']), { code: 250, enhanced: null, text: '' });
  });

  test('a continuation line without a code is kept as text', () => {
    const reply = parseReplyLines(['550-5.1.1 first', '   second', '550 5.1.1 third']);
    assert.equal(reply.code, 550);
    assert.equal(reply.text, 'first\nsecond\nthird');
  });

  test('lines with different codes are not one reply', () => {
    assert.equal(parseReplyLines(['250-mx.example.com', '550 oops']).code, 0);
  });

  const enhancedCases: [string, string | null][] = [
    ['550 5.1.1 User unknown', '5.1.1'],
    ['550 5.1.1: User unknown', '5.1.1'],
    ['550 5.1.1. User unknown', '5.1.1'],
    ['550 #5.1.1 User unknown', '5.1.1'],
    ['550    5.1.1 User unknown', '5.1.1'],
    ['550 5.1.10 RESOLVER.ADR.RecipientNotFound', '5.1.10'],
    ['550 5.7.606 Access denied', '5.7.606'],
    ['550 5.1.1', '5.1.1'],
    ['550 sorry, no mailbox here by that name. (#5.1.1)', '5.1.1'],
    ['451 Resources temporarily unavailable [#4.16.1].', '4.16.1'],
    ['550 5.1 User unknown', null],
    ['550 6.1.1 User unknown', null],
    ['550 5.1.1234 User unknown', null],
    ['550 55.1.1 User unknown', null],
    ['550 5.1.1x User unknown', null],
    ['550 5.1.1.2 User unknown', null],
    ['550 User 5.1.1 unknown', null],
  ];
  for (const [line, enhanced] of enhancedCases) {
    test(`enhanced code of ${JSON.stringify(line)} is ${enhanced}`, () => {
      assert.equal(parseReplyLines([line]).enhanced, enhanced);
    });
  }

  test('an enhanced code of another class is kept as said but not believed', () => {
    const reply = parseReplyLines(['550 2.1.5 Ok']);
    assert.equal(reply.enhanced, '2.1.5');
    assert.deepEqual(classifyRcptReply(reply), unknown('blocked'));
  });
});

describe('hostile and broken replies never throw and read as protocol errors', () => {
  const hostile: [string, string[]][] = [
    ['no code', ['User unknown']],
    ['empty reply', []],
    ['empty line', ['']],
    ['code 999', ['999 5.1.1 User unknown']],
    ['code 199', ['199 hello']],
    ['code 600', ['600 hello']],
    ['second digit above 5', ['560 5.1.1 User unknown']],
    ['four digits', ['5500 User unknown']],
    ['NUL in the text', ['550 5.1.1 User\u0000 unknown']],
    ['escape sequence', ['550 5.1.1 \u001b[31mUser unknown']],
    ['bare line feed inside a line', ['550 5.1.1 User\nunknown']],
    ['DEL', ['550 5.1.1 User unknown\u007f']],
    ['lone high surrogate', ['550 5.1.1 User \ud800unknown']],
    ['lone low surrogate', ['550 5.1.1 User \udc00unknown']],
    ['huge line', [`550 5.1.1 ${'a'.repeat(1_000_000)}`]],
    ['too many lines', Array.from({ length: 100_000 }, () => '550-5.1.1 User unknown')],
    ['not strings', [42, null] as unknown as string[]],
  ];
  for (const [name, lines] of hostile) {
    test(name, () => {
      const reply = parseReplyLines(lines);
      assert.equal(reply.code === 0 || reply.code === 999 || reply.code >= 560 || reply.code < 200, true);
      assert.ok(reply.text.length <= MAX_REPLY_TEXT + 200);
      assert.deepEqual(classifyRcptReply(reply), unknown('protocol_error'));
      for (const stage of SESSION_STAGES) {
        assert.deepEqual(classifySessionReply(stage as SessionStage, reply), unknown('protocol_error'));
      }
    });
  }

  test('a broken reply keeps readable text for support, with unfit characters replaced', () => {
    assert.equal(parseReplyLines(['550 a\u0000b\ud800c']).text, 'a\ufffdb\ufffdc');
  });

  test('replies built by hand are checked too', () => {
    const built: SmtpReply[] = [
      { code: Number.NaN, enhanced: null, text: 'x' },
      { code: 550.5, enhanced: null, text: 'user unknown' },
      { code: 550, enhanced: null, text: 'x'.repeat(MAX_REPLY_TEXT + 1) },
      { code: 550, enhanced: null, text: 'user \u0000 unknown' },
      { code: 550, enhanced: null, text: null as unknown as string },
    ];
    for (const reply of built) assert.deepEqual(classifyRcptReply(reply), unknown('protocol_error'));
    // A garbage enhanced code is ignored, not trusted.
    assert.deepEqual(
      classifyRcptReply({ code: 550, enhanced: '5.1.x', text: 'Rejected' }),
      unknown('blocked'),
    );
    assert.deepEqual(
      classifyRcptReply({ code: 550, enhanced: 42 as unknown as string, text: 'x' }),
      unknown('blocked'),
    );
  });

  test('random input never throws (seeded)', () => {
    let seed = 0x2f6b_1a3d;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    const alphabet = '0123456789 -.#:<>@()[]\r\n\t\u0000\ud800\udc00éabcxyzABC';
    for (let i = 0; i < 2000; i++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
        Array.from(
          { length: Math.floor(next() * 40) },
          () => alphabet[Math.floor(next() * alphabet.length)],
        ).join(''),
      );
      const reply = parseReplyLines(lines);
      assert.equal(typeof classifyRcptReply(reply).kind, 'string');
      assert.equal(typeof classifySessionReply('mail_from', reply).kind, 'string');
    }
  });

  test('worst-case texts are classified quickly (no regex backtracking)', () => {
    const texts = ['a'.repeat(8000), '<'.repeat(8000), 'a@'.repeat(4000), `${'x '.repeat(3999)}@`];
    const started = performance.now();
    for (const text of texts) classifyRcptReply({ code: 550, enhanced: null, text });
    assert.ok(performance.now() - started < 200, 'classifying 8 KiB texts took too long');
  });
});

describe('RCPT precedence', () => {
  test('a block named in words beats a bad-mailbox code', () => {
    assert.deepEqual(
      rcpt('550 5.1.1 Client host [192.0.2.1] blocked using zen.spamhaus.org'),
      unknown('blocked'),
    );
  });

  test('an echoed address is not read as a reason', () => {
    assert.deepEqual(rcpt('550 5.1.1 <blocked.spamhaus@example.com>: User unknown'), {
      kind: 'undeliverable',
    });
    assert.deepEqual(rcpt('550 No such user (spam.block@example.com)'), { kind: 'undeliverable' });
  });

  test('X.7.1 without plain words about the mailbox is a policy; with them, the words are believed', () => {
    assert.deepEqual(rcpt('550 5.7.1 Recipient rejected'), unknown('policy'));
    assert.deepEqual(rcpt('550 5.7.1 Account suspended'), { kind: 'mailbox_disabled' });
    assert.deepEqual(rcpt('550 5.7.1 Recipient address rejected: Access denied'), unknown('policy'));
  });

  test('a 4xx says the mailbox is missing only in plain words, and says it is disabled or full', () => {
    assert.deepEqual(rcpt('450 4.1.1 User unknown'), { kind: 'undeliverable' });
    assert.deepEqual(rcpt('450 4.1.1 Recipient rejected'), unknown('greylisted'));
    assert.deepEqual(rcpt('450 4.2.1 Mailbox disabled'), { kind: 'mailbox_disabled' });
    assert.deepEqual(rcpt('450 4.7.1 Account frozen'), { kind: 'mailbox_disabled' });
    assert.deepEqual(rcpt('452 4.2.2 Mailbox full'), { kind: 'mailbox_full' });
    assert.deepEqual(
      rcpt('451 4.7.1 Greylisting in action, please come back in 00:05:00'),
      unknown('greylisted'),
    );
    assert.deepEqual(rcpt('450 4.7.1 Recipient address rejected: Access denied'), unknown('policy'));
  });

  test('the codes decide when the text says nothing', () => {
    assert.deepEqual(rcpt('550 5.1.1 Rejected'), { kind: 'undeliverable' });
    assert.deepEqual(rcpt('550 5.1.6 Moved'), { kind: 'mailbox_disabled' });
    assert.deepEqual(rcpt('550 5.2.1 Rejected'), { kind: 'mailbox_disabled' });
    assert.deepEqual(rcpt('552 5.2.2 Rejected'), { kind: 'mailbox_full' });
    assert.deepEqual(rcpt('452 4.2.2 Rejected'), { kind: 'mailbox_full' });
    assert.deepEqual(rcpt('452 4.5.3 Rejected'), { kind: 'too_many_recipients' });
    assert.deepEqual(rcpt('552 Too many recipients'), { kind: 'too_many_recipients' });
    assert.deepEqual(rcpt('550 5.1.8 Rejected'), unknown('blocked'));
    assert.deepEqual(rcpt('451 4.3.0 Rejected'), unknown('greylisted'));
  });

  test('an unexplained permanent refusal is not a dead mailbox', () => {
    assert.deepEqual(rcpt('550 Rejected'), unknown('blocked'));
    assert.deepEqual(rcpt('554 5.0.0 Transaction failed'), unknown('blocked'));
    assert.deepEqual(rcpt('501 5.5.4 Syntax error in parameters'), unknown('protocol_error'));
  });

  test('a 3xx at RCPT is a protocol error', () => {
    assert.deepEqual(rcpt('354 go ahead'), unknown('protocol_error'));
  });
});

describe('session replies', () => {
  test('2xx is ok at every stage', () => {
    for (const stage of SESSION_STAGES)
      assert.deepEqual(session(stage as SessionStage, '250 ok'), { kind: 'ok' });
  });

  test('any 5xx banner is a refusal of us', () => {
    assert.deepEqual(session('banner', '554 mx.example.com'), unknown('blocked'));
    assert.deepEqual(session('banner', '521 mx.example.com does not accept mail'), unknown('blocked'));
  });

  test('an unexplained MAIL FROM refusal is blocked; a command error is a protocol error', () => {
    assert.deepEqual(session('mail_from', '550 Rejected'), unknown('blocked'));
    assert.deepEqual(
      session('mail_from', '555 5.5.4 Unsupported option: SMTPUTF8'),
      unknown('protocol_error'),
    );
    assert.deepEqual(
      session('mail_from', '501 5.5.4 Syntax: MAIL FROM:<address>'),
      unknown('protocol_error'),
    );
    assert.deepEqual(session('helo', '500 5.5.1 Command unrecognized'), unknown('protocol_error'));
  });

  test('TLS trouble is tls_failed', () => {
    assert.deepEqual(
      session('mail_from', '530 5.7.0 Must issue a STARTTLS command first'),
      unknown('tls_failed'),
    );
    assert.deepEqual(session('starttls', '501 5.5.4 Syntax error'), unknown('tls_failed'));
    assert.deepEqual(
      session(
        'starttls',
        '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org',
      ),
      unknown('blocked'),
    );
  });

  test('421 means try later unless it names a block', () => {
    assert.deepEqual(session('mail_from', '421 4.3.2 Service shutting down'), unknown('greylisted'));
    assert.deepEqual(session('banner', '421 4.7.0 Too many connections from your IP'), unknown('blocked'));
  });
});
