/**
 * The ResultCache contract: results cached per normalized address, for the TTL they were stored
 * with, returned exactly as stored. Every implementation runs it (memory and Redis).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ResultCache } from '../../../src/usage/ports.ts';
import type { VerificationResult } from '../../../src/verification/report.ts';

/** How a suite gets the implementation under test; `skip` names why it cannot run here. */
export interface ResultCacheSubject {
  name: string;
  cache: () => ResultCache;
  skip?: string | undefined;
}

/** A full result whose every field type is represented: unicode, null, arrays, numbers. */
export function sampleResult(email: string): VerificationResult {
  return {
    email,
    checks: {
      syntax: true,
      domain_exists: true,
      mx_records: true,
      mailbox_exists: true,
      disposable: false,
      role_based: false,
      suggestions: ['jöhn.doe@gmail.com', 'jöhn.doe@gmail.co'],
      free_provider: true,
      catch_all: null,
      smtp: 'unknown',
      catch_all_confidence: null,
    },
    score: 35,
    status: 'PROBABLY_VALID',
    reason: 'greylisted',
    duration_ms: 143.5,
    evidence: {
      mx_host: 'mx1.mail.ovh.net',
      mx_address: '2001:41d0:1:e2b8::1',
      provider: { id: 'ovh', name: 'OVHcloud', kind: 'mailbox_host' },
      smtp_reply: { code: 451, enhanced_code: '4.7.1', message: 'Greylisted — réessayez dans 300 s' },
      catch_all_probe: {
        ran: true,
        outcome: 'inconclusive',
        reply: { code: 451, enhanced_code: null, message: 'Try again later' },
      },
      catch_all_signals: [{ signal: 'local_part_pattern', weight: -12.5, detail: 'jöhn.doe: first.last' }],
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the contract suite for one implementation. */
export function resultCacheContract(subject: ResultCacheSubject): void {
  if (subject.skip !== undefined) {
    // A skipped test, not a skipped suite: the runner's totals count tests only.
    it(`ResultCache contract: ${subject.name}`, { skip: subject.skip }, () => {});
    return;
  }
  // Fresh addresses per run, so a shared Redis never answers from another run's entries.
  const address = (local: string): string => `${local}.${randomUUID()}@example.com`;

  describe(`ResultCache contract: ${subject.name}`, () => {
    it('misses an address never stored, then returns what was stored', async () => {
      const cache = subject.cache();
      const email = address('jane');
      assert.equal(await cache.get(email), undefined);
      await cache.set(email, sampleResult(email), 60);
      assert.deepEqual(await cache.get(email), sampleResult(email));
    });

    it('round-trips a full result exactly: unicode address, null catch_all, suggestions, evidence', async () => {
      const cache = subject.cache();
      const email = `jöhn.doe+标签-${randomUUID()}@gmial.com`;
      const result = sampleResult(email);
      await cache.set(email, result, 60);
      const back = await cache.get(email);
      assert.deepEqual(back, result);
      assert.equal(back?.checks.catch_all, null);
      assert.deepEqual(back?.checks.suggestions, ['jöhn.doe@gmail.com', 'jöhn.doe@gmail.co']);
      assert.deepEqual(back?.evidence, result.evidence);
      assert.equal(back?.evidence.catch_all_probe.reply?.code, 451);
    });

    it('replaces an entry on a second set', async () => {
      const cache = subject.cache();
      const email = address('twice');
      await cache.set(email, sampleResult(email), 60);
      const newer = { ...sampleResult(email), score: 97, status: 'VALID' as const };
      await cache.set(email, newer, 60);
      assert.deepEqual(await cache.get(email), newer);
    });

    it('keeps addresses apart, local-part case included', async () => {
      const cache = subject.cache();
      const upper = address('Jane');
      const lower = upper.replace('Jane', 'jane');
      await cache.set(upper, sampleResult(upper), 60);
      assert.equal(await cache.get(lower), undefined);
    });

    it('forgets an entry once its TTL has passed', async () => {
      const cache = subject.cache();
      const email = address('brief');
      await cache.set(email, sampleResult(email), 1);
      assert.deepEqual(await cache.get(email), sampleResult(email));
      await sleep(1_100);
      assert.equal(await cache.get(email), undefined);
    });

    it('never stores with a TTL of 0 or less', async () => {
      const cache = subject.cache();
      for (const ttl of [0, -5, Number.NaN]) {
        const email = address('never');
        await cache.set(email, sampleResult(email), ttl);
        assert.equal(await cache.get(email), undefined, `ttl ${ttl}`);
      }
    });
  });
}
