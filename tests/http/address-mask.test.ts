/**
 * What the log mask takes for an address: a word with an `@` in it (a quoted local part too), in
 * an SMTP reply, a platform's error or a query string; not a path's `@scope` nor a URL's user (a
 * proxy's `socks5://name@host`, which operators need to read).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskAddresses, withoutAddresses } from '../../src/http/address-mask.ts';

test('masks addresses wherever they stand in text', () => {
  const cases: Array<[string, string]> = [
    ['<alice@example.com>: User unknown', '<[address]>: User unknown'],
    ['Mailchimp: bob@ex.com looks fake or invalid', 'Mailchimp: [address] looks fake or invalid'],
    ['"john doe"@ex.com refused', '[address] refused'],
    ['a=1, email=alice@x.com', 'a=1, [address]'],
    ['jöhn@bücher.de (IDN)', '[address] (IDN)'],
  ];
  for (const [text, masked] of cases) assert.equal(maskAddresses(text), masked, text);
});

test('leaves paths and URL users alone', () => {
  for (const text of [
    'at file:///app/node_modules/@scope/pkg/index.js:1:1',
    'SMTP proxy socks5://mailvet@127.0.0.1:1080: proxy refused connection',
    'no at sign here',
  ]) {
    assert.equal(maskAddresses(text), text);
  }
});

test('masks errors and nested fields, and copies only what changed', () => {
  const plain = { status: 200, path: '/api/v1/verify' };
  assert.equal(withoutAddresses(plain), plain);
  const error = new Error('550 5.1.1 <carol@example.com>: no such user');
  const masked = withoutAddresses({ err: error, detail: { member: 'dave@example.com' } }) as {
    err: { message: string };
    detail: { member: string };
  };
  assert.doesNotMatch(JSON.stringify(masked), /carol|dave/);
  assert.equal(error.message, '550 5.1.1 <carol@example.com>: no such user', 'the original is untouched');
});
