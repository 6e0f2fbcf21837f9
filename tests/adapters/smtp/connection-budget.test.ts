/**
 * The connection budget: token buckets per account, domain and destination address, and a memory
 * of addresses that refused a connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryRateLimiter } from '../../../src/adapters/rate-limit/memory.ts';
import { ConnectionBudget } from '../../../src/adapters/smtp/connection-budget.ts';

const rates = { perAddress: 2, perDomain: 3, perAccount: 20, refusedForMs: 60_000 };
const budgetAt = (overrides: Partial<typeof rates> = {}) => {
  const clock = { now: () => 0 };
  return new ConnectionBudget(new MemoryRateLimiter(clock), clock, { ...rates, ...overrides });
};

test('each bucket holds twice its rate: per destination address, per domain, per account', async () => {
  const address = budgetAt();
  for (let i = 0; i < 4; i++) assert.equal(await address.take('127.0.9.1', `a${i}.test`, 'acct'), null);
  assert.equal(await address.take('127.0.9.1', 'a9.test', 'acct'), 'address_rate');
  assert.equal(await address.take('127.0.9.2', 'a9.test', 'acct'), null, 'another address');

  const domain = budgetAt();
  for (let i = 0; i < 6; i++) assert.equal(await domain.take(`127.0.8.${i}`, 'b.test', 'acct'), null);
  assert.equal(await domain.take('127.0.8.9', 'b.test', 'acct'), 'domain_rate');
  assert.equal(await domain.take('127.0.8.9', 'c.test', 'acct'), null, 'another domain');

  const account = budgetAt({ perAccount: 1 });
  for (let i = 0; i < 2; i++) assert.equal(await account.take(`127.0.7.${i}`, `d${i}.test`, 'acct'), null);
  assert.equal(await account.take('127.0.7.9', 'd9.test', 'acct'), 'account_rate');
  assert.equal(await account.take('127.0.7.9', 'd9.test', 'other'), null, "another account's bucket");
});

test('an address that refused a connection is left alone for refusedForMs', async () => {
  let now = 0;
  const clock = { now: () => now };
  const budget = new ConnectionBudget(new MemoryRateLimiter(clock), clock, rates);
  budget.refused('127.0.9.9');
  assert.equal(await budget.take('127.0.9.9', 'a.test', 'acct'), 'refused_recently');
  now += 60_001;
  assert.equal(await budget.take('127.0.9.9', 'a.test', 'acct'), null);
});
