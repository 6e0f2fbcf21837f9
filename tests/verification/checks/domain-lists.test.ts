import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createListChecker, defaultListChecker } from '../../../src/verification/checks/domain-lists.ts';
import { foldLocalPart, isRoleLocalPart, roleNameCount } from '../../../src/verification/checks/role.ts';
import mxData from '../../../src/verification/data/disposable-mx-hosts.json' with { type: 'json' };
import roleData from '../../../src/verification/data/role-names.json' with { type: 'json' };

const check = (address: string) => {
  const at = address.lastIndexOf('@');
  return defaultListChecker.check(address.slice(0, at), address.slice(at + 1));
};

describe('disposable: maintained list', () => {
  it('flags a listed domain, naming the list as the source', () => {
    assert.deepEqual(check('jane@mailinator.com'), {
      disposable: true,
      disposableSource: 'list',
      roleBased: false,
      freeProvider: false,
    });
    assert.equal(check('x@yopmail.com').disposableSource, 'list');
    assert.equal(check('x@sharklasers.com').disposableSource, 'list');
  });

  it('flags any subdomain of a listed domain as parent_domain', () => {
    assert.equal(check('x@a.mailinator.com').disposableSource, 'parent_domain');
    assert.equal(check('x@a.b.mailinator.com').disposableSource, 'parent_domain');
    assert.equal(check('x@a.b.c.mailinator.com').disposableSource, 'parent_domain');
  });

  it('matches on label boundaries only', () => {
    // notmailinator.com is itself a Mailinator domain on the list, so look-alikes are used here.
    for (const domain of ['mymailinator.com', 'xmailinator.com', 'mailinator.com.au', 'mailinator.co']) {
      assert.equal(defaultListChecker.check('x', domain).disposable, false, domain);
    }
  });

  it('ignores a root dot', () => {
    assert.equal(defaultListChecker.check('x', 'mailinator.com.').disposableSource, 'list');
    assert.equal(defaultListChecker.check('x', 'a.mailinator.com.').disposableSource, 'parent_domain');
  });

  it('does not flag ordinary and free-mail domains', () => {
    for (const domain of ['gmail.com', 'company.com', 'example.com', 'outlook.com', 'mail.google.com']) {
      assert.equal(defaultListChecker.check('x', domain).disposable, false, domain);
    }
  });
});

describe('disposable: operator allow and deny entries', () => {
  it('allow beats the list, for the domain and its subdomains, and leaves other entries alone', () => {
    const lists = createListChecker({ allowDomains: ['mailinator.com'] });
    assert.equal(lists.check('x', 'mailinator.com').disposable, false);
    assert.equal(lists.check('x', 'a.b.mailinator.com').disposable, false);
    assert.equal(lists.check('x', 'a.b.mailinator.com').disposableSource, null);
    assert.equal(lists.check('x', 'yopmail.com').disposable, true);
  });

  it('an allowed subdomain stays allowed under a listed parent', () => {
    const lists = createListChecker({ allowDomains: ['qa.mailinator.com'] });
    assert.equal(lists.check('x', 'box.qa.mailinator.com').disposable, false);
    assert.equal(lists.check('x', 'other.mailinator.com').disposable, true);
  });

  it('deny makes a domain and its subdomains disposable, as operator_deny', () => {
    const lists = createListChecker({ denyDomains: ['Burner-Corp.example'] });
    assert.equal(lists.check('x', 'burner-corp.example').disposableSource, 'operator_deny');
    assert.equal(lists.check('x', 'eu.burner-corp.example').disposableSource, 'operator_deny');
    assert.equal(lists.check('x', 'notburner-corp.example').disposable, false);
    assert.equal(defaultListChecker.check('x', 'burner-corp.example').disposable, false);
  });

  it('accepts *. and . prefixes and a root dot in entries', () => {
    const lists = createListChecker({ denyDomains: ['*.one.example', '.two.example', 'three.example.'] });
    for (const domain of ['one.example', 'a.two.example', 'three.example']) {
      assert.equal(lists.check('x', domain).disposableSource, 'operator_deny', domain);
    }
  });

  it('deny on a listed domain reports the operator as the source', () => {
    const lists = createListChecker({ denyDomains: ['mailinator.com'] });
    assert.equal(lists.check('x', 'mailinator.com').disposableSource, 'operator_deny');
  });

  it('allow beats deny, even for a denied subdomain under an allowed parent', () => {
    const lists = createListChecker({ allowDomains: ['example.org'], denyDomains: ['burner.example.org'] });
    assert.equal(lists.check('x', 'burner.example.org').disposable, false);
  });

  it('a single-label deny entry covers a whole TLD', () => {
    const lists = createListChecker({ denyDomains: ['zz'] });
    assert.equal(lists.check('x', 'shop.zz').disposableSource, 'operator_deny');
    assert.equal(lists.check('x', 'shop.zzz').disposable, false);
  });

  it('a denied free-mail domain is disposable and no longer a free provider', () => {
    const lists = createListChecker({ denyDomains: ['gmail.com'] });
    assert.deepEqual(lists.check('jane', 'gmail.com'), {
      disposable: true,
      disposableSource: 'operator_deny',
      roleBased: false,
      freeProvider: false,
    });
  });
});

describe('disposable: MX hosts of throwaway services', () => {
  it('flags a domain whose MX host is a throwaway service server or under its domain', () => {
    assert.equal(defaultListChecker.isDisposableMx('fresh-burner.example', ['mail.mailinator.com']), true);
    assert.equal(defaultListChecker.isDisposableMx('fresh-burner.example', ['MX2.Temp-Mail.io.']), true);
    assert.equal(defaultListChecker.isDisposableMx('fresh-burner.example', ['generator.email']), true);
    assert.equal(
      defaultListChecker.isDisposableMx('x.example', ['aspmx.l.google.com', 'mx.yopmail.com']),
      true,
    );
  });

  it('does not flag mainstream or shared mail hosts, nor privacy relays', () => {
    const hosts = [
      'aspmx.l.google.com',
      'gmail-smtp-in.l.google.com',
      'company-com.mail.protection.outlook.com',
      'mx.yandex.net',
      'mx.zoho.com',
      'route1.mx.cloudflare.net',
      'eforward1.registrar-servers.com',
      'mx1.hostinger.com',
      'mail.protonmail.ch',
      'mxa.mailgun.org',
      'mx1.simplelogin.co',
      'mx1.improvmx.com',
      'mail.mymailinator.com',
    ];
    assert.equal(defaultListChecker.isDisposableMx('company.com', hosts), false);
  });

  it('is false for no hosts, a null MX and junk host names', () => {
    assert.equal(defaultListChecker.isDisposableMx('company.com', []), false);
    assert.equal(defaultListChecker.isDisposableMx('company.com', ['']), false);
    assert.equal(
      defaultListChecker.isDisposableMx('company.com', ['.', '..', '\ud800', 'x'.repeat(1_000_000)]),
      false,
    );
  });

  it('takes the operator MX domains too, on label boundaries', () => {
    const lists = createListChecker({ disposableMxHosts: ['Burner-MX.example'] });
    assert.equal(lists.isDisposableMx('a.example', ['mx1.burner-mx.example']), true);
    assert.equal(lists.isDisposableMx('a.example', ['mx1.notburner-mx.example']), false);
  });

  it('never flags an operator-allowed domain', () => {
    const lists = createListChecker({ allowDomains: ['our-qa.example'] });
    assert.equal(lists.isDisposableMx('our-qa.example', ['mail.mailinator.com']), false);
    assert.equal(lists.isDisposableMx('other.example', ['mail.mailinator.com']), true);
  });

  it('keeps its data file as lower-case domains without duplicates', () => {
    assert.ok(mxData.domains.length >= 20);
    assert.equal(new Set(mxData.domains).size, mxData.domains.length);
    for (const domain of mxData.domains) assert.match(domain, /^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
  });
});

describe('role-based local parts', () => {
  it('folds case, +tag and the -, _ and . separators', () => {
    assert.equal(foldLocalPart('No-Reply+Orders'), 'noreply');
    assert.equal(foldLocalPart('mailer_daemon'), 'mailerdaemon');
    assert.equal(foldLocalPart('"Info"'), 'info');
    assert.equal(foldLocalPart('+info'), '');
  });

  it('matches every spelling of a role name', () => {
    for (const local of [
      'noreply',
      'no-reply',
      'no_reply',
      'no.reply',
      'NoReply',
      'no-reply+bounce',
      'Do-Not-Reply',
    ]) {
      assert.equal(isRoleLocalPart(local), true, local);
    }
    for (const local of ['info', 'INFO', 'info+newsletter', 'Mailer-Daemon', 'post.master', '"sales"']) {
      assert.equal(isRoleLocalPart(local), true, local);
    }
  });

  it('covers the common functional inboxes, in several languages', () => {
    const roles = ['admin', 'support', 'billing', 'hostmaster', 'abuse', 'hr', 'careers', 'privacy', 'root'];
    const foreign = ['kontakt', 'contacto', 'vertrieb', 'buchhaltung', 'ventas', 'informacion', 'contato'];
    for (const local of [...roles, ...foreign]) assert.equal(isRoleLocalPart(local), true, local);
  });

  it('does not flag personal local parts, first names included', () => {
    for (const local of [
      'john.smith',
      'jane',
      'j.doe',
      'bill',
      'mark',
      'sam',
      'will',
      'grace',
      'dean',
      'art',
    ]) {
      assert.equal(isRoleLocalPart(local), false, local);
    }
    assert.equal(isRoleLocalPart('information.officer.jane'), false);
    assert.equal(isRoleLocalPart('+info'), false);
  });

  it('keeps about a thousand names, folded and unique', () => {
    const names = Object.values(roleData.groups).flat();
    assert.ok(names.length >= 900 && names.length <= 1500, `${names.length} names`);
    assert.equal(new Set(names).size, names.length, 'a name appears twice');
    assert.equal(roleNameCount(), names.length);
    for (const name of names) assert.equal(foldLocalPart(name), name, `${name} is not folded`);
  });

  it('goes through the checker', () => {
    assert.equal(check('info@company.com').roleBased, true);
    assert.equal(check('john.smith@company.com').roleBased, false);
  });
});

describe('free providers', () => {
  it('knows the big consumer providers', () => {
    const domains = ['gmail.com', 'googlemail.com', 'yahoo.com', 'yahoo.co.uk', 'hotmail.com', 'hotmail.de'];
    domains.push('outlook.com', 'aol.com', 'gmx.de', 'gmx.net', 'mail.ru', 'yandex.ru', 'qq.com', '163.com');
    domains.push('protonmail.com', 'proton.me', 'icloud.com', 'tutanota.com', 'fastmail.com', 'web.de');
    for (const domain of domains)
      assert.equal(defaultListChecker.check('jane', domain).freeProvider, true, domain);
  });

  it('is false for company, reserved and sub- domains', () => {
    const domains = ['company.com', 'microsoft.com', 'google.com', 'acme.de', 'example.com', 'test.com'];
    domains.push(
      'facebook.com',
      'easypost.com',
      'mail.gmail.com',
      'corp.yahoo.com',
      'gmail.com.evil.example',
    );
    for (const domain of domains)
      assert.equal(defaultListChecker.check('jane', domain).freeProvider, false, domain);
  });

  it('reports a throwaway service as disposable, not as a free provider', () => {
    // mailinator.com and guerrillamail.com are on the provider list too; disposable wins.
    assert.equal(check('x@mailinator.com').freeProvider, false);
    assert.equal(check('x@guerrillamail.com').freeProvider, false);
  });
});

describe('hostile input never throws', () => {
  const huge = 'a'.repeat(1_000_000);
  const cases: Array<[string, string]> = [
    ['', ''],
    ['', 'gmail.com'],
    ['info', ''],
    ['\ud800', 'gmail.com'],
    ['info\udc00', '\ud800.com'],
    ['\u0000', '\u0000'],
    [huge, 'gmail.com'],
    [`info+${huge}`, 'company.com'],
    ['x', huge],
    ['x', '.'],
    ['x', '..'],
    ['x', '.mailinator.com'],
    ['x', 'a..mailinator.com'],
    ['x', `${'.'.repeat(100_000)}com`],
  ];

  it('returns a verdict for every case', () => {
    for (const [local, domain] of cases) {
      const result = defaultListChecker.check(local, domain);
      assert.equal(typeof result.disposable, 'boolean');
      assert.equal(typeof result.roleBased, 'boolean');
      assert.equal(typeof result.freeProvider, 'boolean');
    }
  });

  it('cuts a +tag of any length and ignores 1 MB local parts', () => {
    assert.equal(defaultListChecker.check(`info+${huge}`, 'company.com').roleBased, true);
    assert.equal(defaultListChecker.check(huge, 'company.com').roleBased, false);
  });

  it('still finds a listed parent under a 1 MB domain, quickly', () => {
    const deep = `${'a.'.repeat(500_000)}mailinator.com`;
    const started = performance.now();
    assert.equal(defaultListChecker.check('x', deep).disposableSource, 'parent_domain');
    // A hang guard, not a speed test: a walk over all 500,000 labels takes seconds, the last 255 characters microseconds.
    assert.ok(performance.now() - started < 2000, 'the walk looked at more than the last 255 characters');
  });
});
