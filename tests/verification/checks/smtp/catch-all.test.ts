import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  catchAllProbeLocalPart,
  combineWithCatchAll,
} from '../../../../src/verification/checks/smtp/catch-all.ts';
import type { RcptVerdict } from '../../../../src/verification/checks/smtp/reply.ts';
import { checkAddressSyntax } from '../../../../src/verification/checks/syntax.ts';

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('catchAllProbeLocalPart', () => {
  test('is 22 lower-case letters and digits, starting with a letter, and a valid local part', () => {
    const random = seeded(7);
    for (let i = 0; i < 500; i++) {
      const localPart = catchAllProbeLocalPart(random);
      assert.match(localPart, /^[a-z][a-z0-9]{21}$/);
      assert.equal(checkAddressSyntax(`${localPart}@example.com`).valid, true);
    }
  });

  test('follows the random source: same seed, same local part; different seeds differ', () => {
    assert.equal(catchAllProbeLocalPart(seeded(42)), catchAllProbeLocalPart(seeded(42)));
    assert.notEqual(catchAllProbeLocalPart(seeded(42)), catchAllProbeLocalPart(seeded(43)));
  });

  test('does not repeat over many draws', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) seen.add(catchAllProbeLocalPart(Math.random));
    assert.equal(seen.size, 10_000);
  });

  test('uses the whole alphabet', () => {
    const random = seeded(1);
    const used = new Set<string>();
    for (let i = 0; i < 2000; i++) for (const ch of catchAllProbeLocalPart(random)) used.add(ch);
    assert.equal(used.size, 36);
  });

  test('edges of [0, 1) map to the ends of the alphabet', () => {
    assert.equal(
      catchAllProbeLocalPart(() => 0),
      'a'.repeat(22),
    );
    assert.equal(
      catchAllProbeLocalPart(() => 0.999_999_999),
      `z${'9'.repeat(21)}`,
    );
  });

  test('a misbehaving random source is clamped, never trusted', () => {
    for (const value of [1, 2, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      assert.match(
        catchAllProbeLocalPart(() => value),
        /^[a-z][a-z0-9]{21}$/,
      );
    }
  });
});

describe('combineWithCatchAll', () => {
  const deliverable: RcptVerdict = { kind: 'deliverable' };
  const undeliverable: RcptVerdict = { kind: 'undeliverable' };
  const full: RcptVerdict = { kind: 'mailbox_full' };
  const disabled: RcptVerdict = { kind: 'mailbox_disabled' };
  const tooMany: RcptVerdict = { kind: 'too_many_recipients' };
  const greylisted: RcptVerdict = { kind: 'unknown', reason: 'greylisted' };
  const blocked: RcptVerdict = { kind: 'unknown', reason: 'blocked' };

  test('the random address accepted: the domain is catch-all and an accepted address is catch_all', () => {
    assert.deepEqual(combineWithCatchAll(deliverable, deliverable), {
      verdict: 'catch_all',
      catchAll: true,
      unknownReason: null,
    });
  });

  test('the random address refused as missing: an accepted address is deliverable', () => {
    for (const probe of [undeliverable, disabled]) {
      assert.deepEqual(combineWithCatchAll(deliverable, probe), {
        verdict: 'deliverable',
        catchAll: false,
        unknownReason: null,
      });
    }
  });

  test('no probe, or a probe that says nothing: catchAll stays unknown', () => {
    for (const probe of [null, full, tooMany, greylisted, blocked]) {
      assert.deepEqual(combineWithCatchAll(deliverable, probe), {
        verdict: 'deliverable',
        catchAll: null,
        unknownReason: null,
      });
    }
  });

  test('a refusal of the address stands even on a catch-all domain', () => {
    for (const [address, verdict] of [
      [undeliverable, 'undeliverable'],
      [full, 'mailbox_full'],
      [disabled, 'mailbox_disabled'],
    ] as const) {
      assert.deepEqual(combineWithCatchAll(address, deliverable), {
        verdict,
        catchAll: true,
        unknownReason: null,
      });
      assert.deepEqual(combineWithCatchAll(address, undeliverable), {
        verdict,
        catchAll: false,
        unknownReason: null,
      });
    }
  });

  test('an unknown address keeps its reason; too many recipients becomes a re-check later', () => {
    assert.deepEqual(combineWithCatchAll(blocked, undeliverable), {
      verdict: 'unknown',
      catchAll: false,
      unknownReason: 'blocked',
    });
    assert.deepEqual(combineWithCatchAll(greylisted, null), {
      verdict: 'unknown',
      catchAll: null,
      unknownReason: 'greylisted',
    });
    assert.deepEqual(combineWithCatchAll(tooMany, deliverable), {
      verdict: 'unknown',
      catchAll: true,
      unknownReason: 'greylisted',
    });
  });

  test('unknownReason is set exactly when the verdict is unknown', () => {
    const verdicts = [deliverable, undeliverable, full, disabled, tooMany, greylisted, blocked];
    for (const address of verdicts) {
      for (const probe of [null, ...verdicts]) {
        const outcome = combineWithCatchAll(address, probe);
        assert.equal(outcome.unknownReason !== null, outcome.verdict === 'unknown');
      }
    }
  });
});
