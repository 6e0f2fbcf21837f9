import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Reason, Status } from '../../src/verification/report.ts';
import { BASE_SCORES, MODIFIERS, scoreReport } from '../../src/verification/scoring.ts';
import { type ReportChange, report, smtp } from './report-builder.ts';

const INVALID_SYNTAX = { valid: false, error: 'no_at_sign', message: 'no @' } as const;
const LITERAL = {
  valid: true,
  quotedLocalPart: false,
  addressLiteral: true,
  internationalized: false,
} as const;
const QUOTED = {
  valid: true,
  quotedLocalPart: true,
  addressLiteral: false,
  internationalized: false,
} as const;

interface Row {
  rule: string;
  change: ReportChange;
  status: Status;
  score: number;
  reason: Reason;
}

// One row per line of the status table (docs/api.md), in its order, plus the reasons each rule can give.
const TABLE: Row[] = [
  {
    rule: 'syntax invalid',
    change: { syntax: INVALID_SYNTAX, dns: null, smtp: null },
    status: 'INVALID_SYNTAX',
    score: 0,
    reason: 'syntax_invalid',
  },
  {
    rule: 'NXDOMAIN',
    change: { dns: { outcome: 'nxdomain' }, smtp: null },
    status: 'INVALID_DOMAIN',
    score: 2,
    reason: 'domain_not_found',
  },
  {
    rule: 'null MX',
    change: { dns: { outcome: 'null_mx' }, smtp: null },
    status: 'NO_MX_RECORDS',
    score: 5,
    reason: 'null_mx',
  },
  {
    rule: 'neither MX nor A',
    change: { dns: { outcome: 'no_mail_host' }, smtp: null },
    status: 'NO_MX_RECORDS',
    score: 5,
    reason: 'no_mail_host',
  },
  {
    rule: 'implicit MX',
    change: {
      dns: { outcome: 'implicit_mx', mxHosts: [{ exchange: 'example.com', priority: 0 }] },
      smtp: smtp('skipped', null, 'probe_skipped'),
    },
    status: 'NO_MX_RECORDS',
    score: 30,
    reason: 'implicit_mx',
  },
  {
    rule: 'mailbox rejected',
    change: { smtp: smtp('undeliverable') },
    status: 'INVALID',
    score: 5,
    reason: 'mailbox_rejected',
  },
  {
    rule: 'mailbox disabled',
    change: { smtp: smtp('mailbox_disabled') },
    status: 'INVALID',
    score: 5,
    reason: 'mailbox_disabled',
  },
  {
    rule: 'disposable + role',
    change: { lists: { disposable: true, roleBased: true } },
    status: 'INVALID',
    score: 10,
    reason: 'multiple_risks',
  },
  {
    rule: 'disposable + full',
    change: { lists: { disposable: true }, smtp: smtp('mailbox_full') },
    status: 'INVALID',
    score: 10,
    reason: 'multiple_risks',
  },
  {
    rule: 'role + full',
    change: { lists: { roleBased: true }, smtp: smtp('mailbox_full') },
    status: 'INVALID',
    score: 10,
    reason: 'multiple_risks',
  },
  {
    rule: 'disposable',
    change: { lists: { disposable: true } },
    status: 'DISPOSABLE',
    score: 15,
    reason: 'disposable',
  },
  {
    rule: 'role-based',
    change: { lists: { roleBased: true } },
    status: 'ROLE_BASED',
    score: 50,
    reason: 'role_account',
  },
  { rule: 'confirmed, not catch-all', change: {}, status: 'VALID', score: 100, reason: 'mailbox_confirmed' },
  {
    rule: 'confirmed, catch-all untested',
    change: { smtp: smtp('deliverable', null) },
    status: 'VALID',
    score: 95,
    reason: 'mailbox_confirmed',
  },
  {
    rule: 'catch-all',
    change: { smtp: smtp('catch_all', true) },
    status: 'PROBABLY_VALID',
    score: 70,
    reason: 'catch_all',
  },
  {
    rule: 'accepted at a catch-all domain',
    change: { smtp: smtp('deliverable', true) },
    status: 'PROBABLY_VALID',
    score: 70,
    reason: 'catch_all',
  },
  {
    rule: 'mailbox full',
    change: { smtp: smtp('mailbox_full') },
    status: 'PROBABLY_VALID',
    score: 40,
    reason: 'mailbox_full',
  },
  ...(
    [
      'greylisted',
      'blocked',
      'timeout',
      'connect_failed',
      'tls_failed',
      'protocol_error',
      'probe_refused',
    ] as const
  ).map(
    (why): Row => ({
      rule: `inconclusive: ${why}`,
      change: { smtp: smtp('unknown', null, why) },
      status: 'PROBABLY_VALID',
      score: 60,
      reason: why,
    }),
  ),
  {
    rule: 'probe skipped',
    change: { smtp: smtp('skipped', null, 'probe_skipped') },
    status: 'PROBABLY_VALID',
    score: 75,
    reason: 'probe_skipped',
  },
  {
    rule: 'DNS lookup failed',
    change: { dns: { outcome: 'error', failure: 'servfail', retry: true }, smtp: null },
    status: 'PROBABLY_VALID',
    score: 50,
    reason: 'dns_error',
  },
  {
    rule: 'DNS timeout',
    change: { dns: { outcome: 'error', failure: 'timeout', retry: true }, smtp: null },
    status: 'PROBABLY_VALID',
    score: 50,
    reason: 'dns_error',
  },
];

describe('scoreReport: the status table', () => {
  for (const row of TABLE) {
    it(`${row.rule} → ${row.status} ${row.score} (${row.reason})`, () => {
      assert.deepEqual(scoreReport(report(row.change)), {
        status: row.status,
        score: row.score,
        reason: row.reason,
      });
    });
  }

  it('the table rows are ordered by safety as the table orders them', () => {
    const score = (change: ReportChange) => scoreReport(report(change)).score;
    assert.ok(score({}) > score({ smtp: smtp('skipped', null, 'probe_skipped') }));
    assert.ok(
      score({ smtp: smtp('skipped', null, 'probe_skipped') }) > score({ smtp: smtp('catch_all', true) }),
    );
    assert.ok(
      score({ smtp: smtp('catch_all', true) }) > score({ smtp: smtp('unknown', null, 'greylisted') }),
    );
    assert.ok(score({ smtp: smtp('unknown', null, 'greylisted') }) > score({ smtp: smtp('mailbox_full') }));
    assert.ok(score({ smtp: smtp('undeliverable') }) < score({ lists: { disposable: true } }));
  });
});

describe('scoreReport: the first matching rule wins', () => {
  it('NXDOMAIN beats a disposable domain', () => {
    const verdict = scoreReport(
      report({ dns: { outcome: 'nxdomain' }, smtp: null, lists: { disposable: true } }),
    );
    assert.equal(verdict.status, 'INVALID_DOMAIN');
  });
  it('a rejected mailbox beats role-based', () => {
    assert.equal(
      scoreReport(report({ smtp: smtp('undeliverable'), lists: { roleBased: true } })).status,
      'INVALID',
    );
  });
  it('disposable beats a confirmed mailbox', () => {
    assert.equal(scoreReport(report({ lists: { disposable: true } })).status, 'DISPOSABLE');
  });
  it('role-based with a full mailbox counts as two risks', () => {
    assert.equal(
      scoreReport(report({ lists: { roleBased: true }, smtp: smtp('mailbox_full') })).reason,
      'multiple_risks',
    );
  });
  it('our own trouble is never INVALID or INVALID_DOMAIN', () => {
    for (const why of ['greylisted', 'blocked', 'timeout', 'connect_failed'] as const) {
      assert.equal(scoreReport(report({ smtp: smtp('unknown', null, why) })).status, 'PROBABLY_VALID');
    }
    for (const failure of ['servfail', 'timeout', 'refused', 'network'] as const) {
      const verdict = scoreReport(report({ dns: { outcome: 'error', failure, retry: true }, smtp: null }));
      assert.equal(verdict.status, 'PROBABLY_VALID');
    }
  });
  it('a free provider alone changes nothing', () => {
    assert.deepEqual(scoreReport(report({ lists: { freeProvider: true } })), scoreReport(report()));
  });
});

describe('scoreReport: modifiers', () => {
  it('a typo suggestion lowers the score by 25', () => {
    const plain = scoreReport(report({ smtp: smtp('skipped', null, 'probe_skipped') }));
    const typo = scoreReport(
      report({ smtp: smtp('skipped', null, 'probe_skipped'), suggestions: ['jane@gmail.com'] }),
    );
    assert.equal(typo.score, plain.score + MODIFIERS.typoSuggestion);
    assert.equal(typo.score, 50);
    assert.equal(typo.status, plain.status);
  });
  it('a quoted local part lowers the score by 15', () => {
    assert.equal(scoreReport(report({ syntax: QUOTED })).score, BASE_SCORES.confirmedNotCatchAll - 15);
  });
  it('an address literal is treated as an implicit MX, and lowered by 15', () => {
    const verdict = scoreReport(report({ syntax: LITERAL, dns: null, smtp: null }));
    assert.deepEqual(verdict, { status: 'NO_MX_RECORDS', score: 30 - 15, reason: 'implicit_mx' });
  });
  it('modifiers add up and the score never leaves 0..100', () => {
    const both = scoreReport(
      report({ syntax: QUOTED, suggestions: ['"x"@gmail.com'], lists: { disposable: true } }),
    );
    assert.equal(both.score, 0);
    const invalid = scoreReport(report({ syntax: INVALID_SYNTAX, suggestions: ['x@gmail.com'] }));
    assert.equal(invalid.score, 0);
  });
});
