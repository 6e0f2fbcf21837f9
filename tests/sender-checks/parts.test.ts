/**
 * The pure parts of the sender checks: MTA-STS patterns and policy lines, tag=value records, the
 * grade's rule table, the domain and selector rules, and the report cache's key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTagList } from '../../src/mail-auth/tag-list.ts';
import { mxMatches, parsePolicy } from '../../src/sender-checks/checks/mta-sts.ts';
import { cacheKey } from '../../src/sender-checks/domain-check-service.ts';
import { isSelector, senderDomain } from '../../src/sender-checks/domain-name.ts';
import { type SenderFinding, senderFinding } from '../../src/sender-checks/finding.ts';
import { gradeOf } from '../../src/sender-checks/grade.ts';

describe('MTA-STS', () => {
  it('matches a wildcard against one leftmost label only (RFC 8461 §4.1)', () => {
    assert.equal(mxMatches('mx1.example.com', '*.example.com'), true);
    assert.equal(mxMatches('a.mx1.example.com', '*.example.com'), false);
    assert.equal(mxMatches('example.com', '*.example.com'), false);
    assert.equal(mxMatches('mx.example.com', 'mx.example.com'), true);
    assert.equal(mxMatches('mx.example.com.evil.test', 'mx.example.com'), false);
  });

  it('reads policy lines, CRLF or LF, keeping every mx', () => {
    const policy = parsePolicy(
      'version: STSv1\r\nmode: Enforce\r\nmx: a.example.com\r\nmx: *.example.net.\r\nmax_age: 86400\r\n',
    );
    assert.deepEqual(policy, {
      version: 'STSv1',
      mode: 'enforce',
      maxAge: 86400,
      mx: ['a.example.com', '*.example.net'],
    });
    assert.equal(parsePolicy('max_age: -5').maxAge, null);
  });
});

describe('tag=value records', () => {
  it('reads tags in order, lower-cases names, refuses repeats and bare words', () => {
    const parsed = parseTagList('v=DMARC1; P=reject ;rua=mailto:a@b.test;');
    assert.ok(typeof parsed !== 'string');
    assert.deepEqual(parsed.order, ['v', 'p', 'rua']);
    assert.equal(parsed.tags.get('p'), 'reject');
    assert.match(parseTagList('v=DMARC1; p=none; p=reject') as string, /appears twice/);
    assert.match(parseTagList('v=DMARC1; reject') as string, /not tag=value/);
  });
});

describe('the grade', () => {
  const at = (status: SenderFinding['status'], code = 'x') => senderFinding('spf', code, status, '');
  it('takes 20 points per failure and 6 per warning, A only without either', () => {
    assert.deepEqual(gradeOf([at('pass'), at('info')]), { grade: 'A', score: 100 });
    assert.deepEqual(gradeOf([at('warn')]), { grade: 'B', score: 94 });
    assert.deepEqual(gradeOf([at('fail'), at('warn'), at('warn')]), { grade: 'C', score: 68 });
    assert.deepEqual(gradeOf(Array.from({ length: 6 }, () => at('fail'))), { grade: 'F', score: 0 });
  });

  it('holds the grade down for findings that alone get mail refused or spoofed', () => {
    assert.equal(gradeOf([at('fail', 'spf_pass_all')]).grade, 'D');
    assert.equal(gradeOf([at('fail', 'dmarc_missing')]).grade, 'C');
    assert.equal(gradeOf([at('fail', 'blocklist_listed')]).grade, 'D');
  });
});

describe('the domain and the selectors', () => {
  it('takes host names (IDN as A-labels) and refuses the rest', () => {
    assert.deepEqual(senderDomain(' Example.COM. '), { ok: true, domain: 'example.com' });
    assert.deepEqual(senderDomain('bücher.example'), { ok: true, domain: 'xn--bcher-kva.example' });
    for (const bad of [
      '',
      'localhost',
      '10.0.0.1',
      '[IPv6:::1]',
      'a..b.test',
      'under_score.test',
      'x.-y.test',
    ])
      assert.equal(senderDomain(bad).ok, false, bad);
  });

  it('takes selectors of LDH labels', () => {
    for (const good of ['google', 's1', 'selector-1', 'k1.mail']) assert.equal(isSelector(good), true, good);
    for (const bad of ['', '-s', 's-', '../x', 'a b', 'a..b', 's_1'])
      assert.equal(isSelector(bad), false, bad);
  });

  it('keys the report cache by domain and the set of selectors', () => {
    assert.equal(cacheKey('example.com', ['S2', 's1', 's1']), cacheKey('example.com', ['s1', 's2']));
    assert.notEqual(cacheKey('example.com', []), cacheKey('example.com', ['google']));
  });
});
