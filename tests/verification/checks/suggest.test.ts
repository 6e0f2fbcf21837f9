import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { checkSuggestions, suggestDomain } from '../../../src/verification/checks/suggest.ts';
import { knownDomains, typoProneTlds, validTlds } from '../../../src/verification/checks/suggest-data.ts';
import { osaDistance } from '../../../src/verification/checks/suggest-distance.ts';
import { cleanDomain, correctDomain } from '../../../src/verification/checks/suggest-engine.ts';
import commonDomains from '../../../src/verification/data/common-mail-domains.json' with { type: 'json' };
import popularData from '../../../src/verification/data/popular-domains.json' with { type: 'json' };
import tldData from '../../../src/verification/data/popular-tlds.json' with { type: 'json' };

const require = createRequire(import.meta.url);
const disposable: string[] = require('disposable-email-domains-js/dist/dict/disposable_email_blocklist.json');
const ALONE = { useKnownDomains: false, excludedTarget: null };

describe('osaDistance', () => {
  it('counts an adjacent transposition as one edit', () => {
    assert.equal(osaDistance('gmial', 'gmail', 3), 1);
    assert.equal(osaDistance('hotmial', 'hotmail', 3), 1);
    assert.equal(osaDistance('cmo', 'com', 3), 1);
  });

  it('counts insertions, deletions and substitutions', () => {
    assert.equal(osaDistance('gmai', 'gmail', 3), 1);
    assert.equal(osaDistance('gmaill', 'gmail', 3), 1);
    assert.equal(osaDistance('gnail', 'gmail', 3), 1);
    assert.equal(osaDistance('kitten', 'sitting', 5), 3);
    assert.equal(osaDistance('', 'abc', 5), 3);
    assert.equal(osaDistance('same', 'same', 0), 0);
  });

  it('is the restricted distance: no substring is edited twice', () => {
    // Damerau–Levenshtein proper gives 2 (ca → ac → abc); OSA gives 3.
    assert.equal(osaDistance('ca', 'abc', 5), 3);
  });

  it('stops at max + 1', () => {
    assert.equal(osaDistance('yahoo', 'outlook', 2), 3);
    assert.equal(osaDistance('a', 'abcdef', 2), 3);
  });

  it('charges two edits for a dot swapped with a letter, one for a missing dot', () => {
    assert.equal(osaDistance('ecom', '.com', 3), 2);
    assert.equal(osaDistance('com', '.com', 3), 1);
    assert.equal(osaDistance('gmailc.om', 'gmail.com', 3), 1);
  });
});

describe('suggestDomain: corrections', () => {
  const cases: Array<[string, string]> = [
    ['gmial.com', 'gmail.com'],
    ['gmail.co', 'gmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['yaho.com', 'yahoo.com'],
    ['gmail.cmo', 'gmail.com'],
    ['hotmail.con', 'hotmail.com'],
    ['outlok.com', 'outlook.com'],
    ['gmailcom', 'gmail.com'],
    ['gmaill.com', 'gmail.com'],
    ['yahooo.com', 'yahoo.com'],
    ['hotmai.com', 'hotmail.com'],
    ['iclod.com', 'icloud.com'],
    ['comcats.net', 'comcast.net'],
    ['verizon.ent', 'verizon.net'],
    ['hotmial.fr', 'hotmail.fr'],
    ['yahoo.co.ukk', 'yahoo.co.uk'],
    ['gmail.net', 'gmail.com'],
    ['outlook.org', 'outlook.com'],
    ['acme.cmo', 'acme.com'],
    ['acme.co.ik', 'acme.co.uk'],
    ['acme.comm', 'acme.com'],
    ['acme.nett', 'acme.net'],
    ['acmecom', 'acme.com'],
    ['acme.cm', 'acme.com'],
    ['acme.co.br', 'acme.com.br'],
    ['acme.com.com', 'acme.com'],
  ];
  for (const [typed, expected] of cases) {
    it(`${typed} → ${expected}`, () => assert.equal(suggestDomain(typed), expected));
  }

  it('cleans stray characters (direct callers; the pipeline only passes valid domains)', () => {
    assert.equal(suggestDomain('#gmail.com'), 'gmail.com');
    assert.equal(suggestDomain('.acme.com'), 'acme.com');
    assert.equal(suggestDomain('acme,com'), 'acme.com');
    assert.equal(suggestDomain('acme..com'), 'acme.com');
    assert.equal(suggestDomain('GMIAL.COM'), 'gmail.com');
    assert.equal(cleanDomain('acme.com/.au'), 'acme.com.au');
    assert.equal(cleanDomain('acme.co,'), 'acme.co,');
  });

  it('answers the same when asked again (memoized)', () => {
    for (let i = 0; i < 3; i++) assert.equal(suggestDomain('gmial.com'), 'gmail.com');
    for (let i = 0; i < 3; i++) assert.equal(suggestDomain('acme-widgets.com'), null);
  });
});

describe('suggestDomain: leaves real domains alone', () => {
  const real = [
    'gmail.com',
    'mail.com',
    'gmx.com',
    'gmx.de',
    'live.com',
    'love.com',
    'me.com',
    'mac.com',
    'aol.com',
    'msn.com',
    'ymail.com',
    'email.com',
    'yahoo.co.uk',
    'yahoo.co.jp',
    'hotmail.fr',
    'web.de',
    'hanmail.net',
    'comcast.net',
    'att.net',
    'verizon.net',
    'mit.edu',
    'ox.ac.uk',
  ];
  for (const domain of real) {
    it(domain, () => assert.equal(suggestDomain(domain), null));
  }

  it('never corrects an unknown company domain far from every provider', () => {
    for (const domain of ['acme-widgets.com', 'northwind.co.uk', 'contoso.de', 'initech.io', 'example.org']) {
      assert.equal(suggestDomain(domain), null, domain);
    }
  });

  it('leaves short and word-like names that are not typos (without the known list too)', () => {
    for (const domain of [
      'hive.com',
      'lime.com',
      'small.com',
      'trail.com',
      'wahoo.com',
      'mymail.com',
      'dive.com',
    ]) {
      assert.equal(correctDomain(domain, ALONE), null, domain);
    }
  });

  it('never corrects towards a provider under a school or government suffix', () => {
    assert.equal(suggestDomain('gmial.edu'), null);
    assert.equal(suggestDomain('gmai.ac.uk'), null);
    assert.equal(suggestDomain('yaho.gov'), null);
  });

  it('leaves subdomains of other hosts alone', () => {
    assert.equal(suggestDomain('mail.acme.com'), null);
    assert.equal(suggestDomain('smtp.comcast.com'), null);
  });

  it('keeps real country TLDs close to others', () => {
    for (const domain of ['acme.co', 'acme.cn', 'acme.gr', 'acme.ca', 'acme.com.co', 'acme.coop']) {
      assert.equal(suggestDomain(domain), null, domain);
    }
  });
});

describe('checkSuggestions', () => {
  it('returns whole corrected addresses, keeping the local part as typed', () => {
    assert.deepEqual(checkSuggestions('Jane.Doe', 'gmial.com'), { suggestions: ['Jane.Doe@gmail.com'] });
  });

  it('returns [] when there is nothing to correct', () => {
    assert.deepEqual(checkSuggestions('jane', 'gmail.com'), { suggestions: [] });
    assert.deepEqual(checkSuggestions('jane', 'acme-widgets.com'), { suggestions: [] });
  });
});

describe('suggestDomain never throws', () => {
  const hostile = [
    '',
    '.',
    '..',
    '@',
    '-',
    '\uD800',
    '\uD800.com',
    'gm\u0000ail.com',
    '\u0007\u001b',
    'xn--',
    'a'.repeat(1_000_000),
    `${'a.'.repeat(200)}com`,
    '…',
    'gmaíl.com',
    '[192.0.2.1]',
    '[ipv6:::1]',
    ',,,',
    'com',
    'co.uk',
  ];
  for (const input of hostile) {
    it(JSON.stringify(input.slice(0, 20)), () => {
      const answer = suggestDomain(input);
      assert.ok(answer === null || /^[a-z0-9.-]+$/.test(answer));
      assert.ok(Array.isArray(checkSuggestions('x', input).suggestions));
    });
  }

  it('has nothing to say about address literals and IP addresses', () => {
    for (const literal of ['[192.0.2.1]', '[ipv6:2001:db8::1]', '192.0.2.1', '10.0.0.256']) {
      assert.equal(suggestDomain(literal), null, literal);
    }
  });
});

describe('data', () => {
  const domains = commonDomains.domains;

  it('common-mail-domains.json holds 5,000 distinct well-formed domains', () => {
    assert.equal(domains.length, 5000);
    assert.equal(new Set(domains).size, 5000);
    assert.equal(commonDomains.count, 5000);
    for (const d of domains) assert.match(d, /^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    for (const d of domains) assert.ok(validTlds.has(d.slice(d.lastIndexOf('.') + 1)), d);
  });

  it('holds no disposable domain (nor a subdomain of one)', () => {
    const blocked = new Set(disposable);
    for (const d of domains) {
      const labels = d.split('.');
      for (let i = 0; i < labels.length - 1; i++) assert.ok(!blocked.has(labels.slice(i).join('.')), d);
    }
  });

  it('holds no typo of a popular domain', () => {
    for (const typo of [
      'gmial.com',
      'gmai.com',
      'gamil.com',
      'hotmial.com',
      'yaho.com',
      'gmail.co',
      'hotmai.com',
    ]) {
      assert.ok(!knownDomains.has(typo), typo);
    }
  });

  it('starts with the popular domains, all of them known', () => {
    assert.deepEqual(domains.slice(0, 10), popularData.domains.slice(0, 10));
    for (const d of popularData.domains) assert.ok(domains.includes(d), d);
  });

  it('popular suffixes end in real TLDs; typo-prone TLDs are the rare look-alikes of com and net', () => {
    for (const s of tldData.popular) assert.ok(validTlds.has(s.slice(s.lastIndexOf('.') + 1)), s);
    assert.deepEqual([...typoProneTlds].sort(), ['cm', 'et', 'ne', 'om']);
  });

  it('is what scripts/build-domain-lists.ts generates', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-domain-lists.ts', '--check'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });
});
