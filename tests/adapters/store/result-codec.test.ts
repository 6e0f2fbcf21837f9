/**
 * The compact form of stored list results: what goes in comes out equal, it is several times
 * smaller than the JSON (the point of it), JSON text stored before it reads as before, and a form
 * this release does not know is refused rather than misread.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeResult, encodeResult } from '../../../src/adapters/store/result-codec.ts';
import type { VerificationResult } from '../../../src/verification/report.ts';
import { verificationResult } from './list-store-contract.ts';

function rejected(email: string): VerificationResult {
  const base = verificationResult(email, 'INVALID');
  const reply = {
    stage: 'rcpt' as const,
    code: 550,
    enhanced_code: '5.1.1',
    message: `5.1.1 <${email}>: Recipient address rejected: User unknown in virtual mailbox table`,
    at: '2026-11-28T04:33:00.123Z',
  };
  return {
    ...base,
    evidence: {
      ...base.evidence,
      mx_host: 'mx1.example.test',
      mx_address: '192.0.2.25',
      smtp_reply: reply,
      catch_all_probe: { ran: true, outcome: 'rejected', reply: { ...reply, message: 'no such user' } },
    },
  };
}

describe('stored result form', () => {
  it('gives back what it was given, in a fraction of the JSON', () => {
    for (const email of ['ann@example.test', 'josé@bücher.example', '"a b"@example.test']) {
      const result = rejected(email);
      const stored = encodeResult(result);
      assert.deepEqual(decodeResult(stored), result);
      const json = Buffer.byteLength(JSON.stringify(result));
      assert.ok(stored.length * 3 < json, `${stored.length} bytes stored for ${json} of JSON`);
    }
  });

  it('reads results stored as JSON text', () => {
    const result = rejected('old@example.test');
    assert.deepEqual(decodeResult(JSON.stringify(result)), result);
  });

  it('refuses a form it does not know', () => {
    const stored = encodeResult(rejected('x@example.test'));
    stored[0] = 99;
    assert.throws(() => decodeResult(stored), /unknown form \(99\)/);
  });
});
