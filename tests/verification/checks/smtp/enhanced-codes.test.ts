/**
 * The IANA registry of enhanced status codes as the classifier reads it: whole, well-formed, and
 * deciding what a reply is about over the reply's words wherever a code has a meaning of its own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyRcptReply, parseReplyLines } from '../../../../src/verification/checks/smtp/classify.ts';
import registry from '../../../../src/verification/checks/smtp/enhanced-status-codes.json' with {
  type: 'json',
};

const rcpt = (line: string) => classifyRcptReply(parseReplyLines([line]));
const INVALID = new Set(['undeliverable', 'mailbox_disabled']);

describe('the registry file', () => {
  test('holds every enumerated code of RFC 3463 and its updates, once, with a known reading', () => {
    const codes = registry.codes.map((entry) => entry.code);
    assert.equal(new Set(codes).size, codes.length, 'a code twice');
    // RFC 3463 and the later registrations (RFC 3886, 4468, 4954, 5248, 6531, 6710, 7293, 7372, 7505, 8617, 8689).
    const expectedDetails: Record<number, number> = { 0: 0, 1: 10, 2: 4, 3: 6, 4: 7, 5: 6, 6: 10, 7: 30 };
    for (const [subject, last] of Object.entries(expectedDetails))
      for (let detail = 0; detail <= last; detail++)
        assert.ok(codes.includes(`X.${subject}.${detail}`), `X.${subject}.${detail} missing`);
    assert.equal(codes.length, 81);
    for (const entry of registry.codes) {
      assert.ok(entry.reading in registry.readings, `${entry.code}: reading ${entry.reading}`);
      assert.match(entry.reference, /^(RFC \d+|IANA)/, entry.code);
      assert.ok(entry.sample_text.length > 5 && entry.note.length > 10, entry.code);
      assert.equal(
        entry.reading === 'generic',
        entry.code.endsWith('.0'),
        `${entry.code}: only X.y.0 is generic`,
      );
    }
  });
});

describe('a code with a meaning of its own decides over the words', () => {
  const notAboutTheMailbox = registry.codes.filter(
    (entry) => ['message', 'system', 'protocol', 'sender', 'tls'].includes(entry.reading) && !entry.stretched,
  );

  test('no reply about the message, the system, the protocol or the sender is INVALID, whatever it says', () => {
    assert.ok(notAboutTheMailbox.length > 40);
    for (const entry of notAboutTheMailbox) {
      const code = entry.code.replace('X.', '5.');
      for (const words of [
        'Recipient address rejected: User unknown',
        'Mailbox unavailable',
        'no such user',
      ]) {
        const verdict = rcpt(`550 ${code} <someone@example.com>: ${words}`);
        assert.ok(!INVALID.has(verdict.kind), `${code} ${words} → ${JSON.stringify(verdict)}`);
      }
    }
  });

  test('the kinds of replies that made good addresses INVALID', () => {
    assert.deepEqual(
      rcpt('554 5.3.4 <someone@example.com>: Recipient address rejected: Message too big for system'),
      {
        kind: 'unknown',
        reason: 'message_refused',
      },
    );
    assert.deepEqual(rcpt('550 5.4.4 <someone@example.com>: Recipient address rejected: unable to route'), {
      kind: 'unknown',
      reason: 'system_error',
    });
    assert.deepEqual(rcpt('550 5.6.0 Recipient rejected: content not accepted'), {
      kind: 'unknown',
      reason: 'message_refused',
    });
    assert.deepEqual(rcpt('550 5.2.3 Recipient address rejected: message exceeds mailbox size'), {
      kind: 'unknown',
      reason: 'message_refused',
    });
  });

  test('full beats inactive where the code says full; X.7.13 is a disabled account, 4xx or 5xx', () => {
    assert.deepEqual(
      rcpt(
        "552 5.2.2 The recipient's inbox is out of storage space and inactive. Please direct the recipient to",
      ),
      { kind: 'mailbox_full' },
    );
    assert.deepEqual(rcpt('550 5.7.13 User account disabled'), { kind: 'mailbox_disabled' });
    assert.deepEqual(rcpt('450 4.7.13 Account frozen'), { kind: 'mailbox_disabled' });
    assert.deepEqual(rcpt('550 5.2.1 Mailbox locked'), { kind: 'mailbox_disabled' });
  });
});

describe('words decide where the code is generic, unregistered or absent', () => {
  test('X.y.0 and no code: the words', () => {
    assert.deepEqual(rcpt('550 5.0.0 <someone@example.com>: User unknown'), { kind: 'undeliverable' });
    assert.deepEqual(rcpt('550 5.2.0 Mailbox frozen'), { kind: 'mailbox_disabled' });
    assert.deepEqual(rcpt('550 Message size exceeds fixed limit'), {
      kind: 'unknown',
      reason: 'message_refused',
    });
    assert.deepEqual(rcpt('550 Mail loop detected'), { kind: 'unknown', reason: 'system_error' });
  });

  test("then the generic code's subject; an unregistered detail reads as its subject's X.y.0", () => {
    assert.deepEqual(rcpt('550 5.3.0 Rejected'), { kind: 'unknown', reason: 'system_error' });
    assert.deepEqual(rcpt('550 5.6.0 Rejected'), { kind: 'unknown', reason: 'message_refused' });
    // X.2.0 says the mailbox exists: weak words do not make it missing.
    assert.deepEqual(rcpt('550 5.2.0 Mailbox unavailable'), { kind: 'unknown', reason: 'policy' });
    assert.deepEqual(rcpt('550 Mailbox unavailable'), { kind: 'undeliverable' });
    assert.deepEqual(
      rcpt('550 5.7.750 Service unavailable. Client blocked from sending from unregistered domains'),
      {
        kind: 'unknown',
        reason: 'policy',
      },
    );
    assert.deepEqual(rcpt('550 5.4.310 DNS domain does not exist'), {
      kind: 'unknown',
      reason: 'system_error',
    });
  });

  test('a 4xx says a mailbox is missing only in plain words and without try-later words', () => {
    assert.deepEqual(rcpt('451 Invalid Recipient'), { kind: 'undeliverable' });
    assert.deepEqual(
      rcpt(
        '450 4.1.1 <someone@example.com>: Recipient address rejected: User unknown in local recipient table',
      ),
      {
        kind: 'undeliverable',
      },
    );
    assert.deepEqual(
      rcpt('450 4.1.1 <someone@example.com>: Recipient address rejected: unverified address: lookup failed'),
      {
        kind: 'unknown',
        reason: 'greylisted',
      },
    );
    assert.deepEqual(rcpt('450 4.1.1 User unknown, try again later'), {
      kind: 'unknown',
      reason: 'greylisted',
    });
  });
});
