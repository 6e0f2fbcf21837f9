/**
 * The mail posture the catch-all model reads, from TXT records as published: SPF by its ending,
 * DMARC by its policy, and a failed lookup as "not known".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dmarcPosture, lookUpMailPosture, spfPosture } from '../../../src/mail-auth/mail-posture.ts';
import type { DnsAnswer } from '../../../src/verification/ports.ts';

describe('spfPosture', () => {
  it('reads the ending of the one v=spf1 record', () => {
    assert.equal(spfPosture(['v=spf1 include:_spf.google.com -all']), 'sane');
    assert.equal(spfPosture(['google-site-verification=x', 'v=spf1 mx ~all']), 'sane');
    assert.equal(spfPosture(['v=spf1 redirect=_spf.example.net']), 'sane');
    assert.equal(spfPosture(['v=spf1 +all']), 'permissive');
    assert.equal(spfPosture(['v=spf1 a mx ?all']), 'permissive');
    assert.equal(spfPosture(['v=spf1 a mx']), 'permissive');
  });

  it('tells none from broken', () => {
    assert.equal(spfPosture([]), 'absent');
    assert.equal(spfPosture(['some other text']), 'absent');
    assert.equal(spfPosture(['v=spf1 -all', 'v=spf1 ~all']), 'invalid');
    assert.equal(spfPosture(['v=spf1 bogus:thing -all']), 'invalid');
  });
});

describe('dmarcPosture', () => {
  it('reads p= of the one v=DMARC1 record', () => {
    assert.equal(dmarcPosture(['v=DMARC1; p=reject; rua=mailto:d@example.com']), 'reject');
    assert.equal(dmarcPosture(['v=DMARC1; p=Quarantine']), 'quarantine');
    assert.equal(dmarcPosture(['v=DMARC1; p=none']), 'none');
  });

  it('is absent without one valid record', () => {
    assert.equal(dmarcPosture([]), 'absent');
    assert.equal(dmarcPosture(['v=DMARC1; p=none', 'v=DMARC1; p=reject']), 'absent');
    assert.equal(dmarcPosture(['v=DMARC1; rua=mailto:d@example.com']), 'absent');
    assert.equal(dmarcPosture(['v=DMARC1; p=strict']), 'absent');
  });
});

describe('lookUpMailPosture', () => {
  const ok = (records: string[]): DnsAnswer<string[]> => ({ kind: 'ok', records, ttlSeconds: 60 });
  it('asks the domain and _dmarc.<domain>', async () => {
    const asked: string[] = [];
    const posture = await lookUpMailPosture(
      {
        resolveTxt: async (name) => {
          asked.push(name);
          return name.startsWith('_dmarc.') ? ok(['v=DMARC1; p=reject']) : ok(['v=spf1 -all']);
        },
      },
      'acme.test',
    );
    assert.deepEqual(posture, { spf: 'sane', dmarc: 'reject' });
    assert.deepEqual(asked.sort(), ['_dmarc.acme.test', 'acme.test']);
  });

  it('is null when a lookup failed, and absent for NXDOMAIN or no data', async () => {
    const failed = await lookUpMailPosture(
      { resolveTxt: async () => ({ kind: 'error', failure: 'timeout', retry: true }) as DnsAnswer<string[]> },
      'acme.test',
    );
    assert.equal(failed, null);
    const none = await lookUpMailPosture(
      { resolveTxt: async () => ({ kind: 'nodata', ttlSeconds: 60 }) },
      'acme.test',
    );
    assert.deepEqual(none, { spf: 'absent', dmarc: 'absent' });
  });
});
