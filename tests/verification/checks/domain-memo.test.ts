/**
 * The domain memo: each domain answered once while it is remembered, null answers included;
 * memory bounded to two generations; each checker's memo its own (new operator lists, new answers).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createListChecker } from '../../../src/verification/checks/domain-lists.ts';
import { DomainMemo } from '../../../src/verification/checks/domain-memo.ts';

test('answers once per domain while remembered, null included, within two generations', () => {
  const memo = new DomainMemo<string | null>(3);
  const asked: string[] = [];
  const answer = (domain: string) => {
    asked.push(domain);
    return domain.startsWith('n') ? null : domain.toUpperCase();
  };
  assert.equal(memo.get('a.test', answer), 'A.TEST');
  assert.equal(memo.get('n.test', answer), null);
  assert.equal(memo.get('a.test', answer), 'A.TEST');
  assert.equal(memo.get('n.test', answer), null);
  assert.deepEqual(asked, ['a.test', 'n.test']);
  // Filling three generations' worth: the oldest answers are forgotten, then asked again.
  for (const domain of ['b.test', 'c.test', 'd.test', 'e.test', 'f.test', 'g.test']) memo.get(domain, answer);
  asked.length = 0;
  memo.get('a.test', answer);
  memo.get('g.test', answer);
  assert.deepEqual(asked, ['a.test']);
});

test("a checker's remembered verdicts are its own: another operator's lists answer anew", () => {
  const plain = createListChecker();
  const denying = createListChecker({ denyDomains: ['example.org'] });
  assert.equal(plain.check('jane', 'example.org').disposable, false);
  assert.equal(denying.check('jane', 'example.org').disposable, true);
  assert.equal(plain.check('jane', 'example.org').disposable, false);
  const allowing = createListChecker({ allowDomains: ['mailinator.com'] });
  assert.equal(plain.check('x', 'mailinator.com').disposable, true);
  assert.equal(allowing.check('x', 'mailinator.com').disposable, false);
  assert.equal(allowing.isDisposableMx('mailinator.com', ['mail.mailinator.com']), false);
  assert.equal(plain.check('x', 'gmail.com').freeProvider, true);
  assert.equal(plain.check('info', 'gmail.com').roleBased, true);
  assert.equal(plain.check('jane', 'gmail.com').roleBased, false);
});
