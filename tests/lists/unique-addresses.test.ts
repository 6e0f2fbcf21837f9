/**
 * An upload's unique addresses, gathered in memory: each counted once with all its rows, its
 * first row and the email as that row wrote it, handed over sorted by domain then key (the order
 * the store keeps), and handed over early when the gathering is full, so memory stays bounded.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UploadedRow } from '../../src/lists/ports.ts';
import { UniqueAddresses } from '../../src/lists/upload/unique-addresses.ts';

let next = 0;
function row(email: string, addressKey = email): UploadedRow {
  next += 1;
  const domain = addressKey.slice(addressKey.lastIndexOf('@') + 1).toLowerCase();
  return { rowNumber: next, email, addressKey, domain, fields: null };
}

describe('unique addresses of an upload', () => {
  it('counts each address once, keeps its first row, and sorts by domain then key', () => {
    next = 0;
    const unique = new UniqueAddresses();
    for (const uploaded of [
      row('zed@b.test'),
      row('Yan@A.test', 'Yan@a.test'),
      row('xi@c.test'),
      row('yan@a.test', 'Yan@a.test'),
      row('amy@b.test'),
    ]) {
      assert.equal(unique.add(uploaded), null);
    }
    assert.deepEqual(unique.take(), [
      { addressKey: 'Yan@a.test', email: 'Yan@A.test', domain: 'a.test', firstRow: 2, rowCount: 2 },
      { addressKey: 'amy@b.test', email: 'amy@b.test', domain: 'b.test', firstRow: 5, rowCount: 1 },
      { addressKey: 'zed@b.test', email: 'zed@b.test', domain: 'b.test', firstRow: 1, rowCount: 1 },
      { addressKey: 'xi@c.test', email: 'xi@c.test', domain: 'c.test', firstRow: 3, rowCount: 1 },
    ]);
    assert.deepEqual(unique.take(), [], 'taking empties the gathering');
  });

  it('hands the addresses over when full and gathers afresh', () => {
    next = 0;
    const unique = new UniqueAddresses(3);
    assert.equal(unique.add(row('c@x.test')), null);
    assert.equal(unique.add(row('a@x.test')), null);
    assert.equal(unique.add(row('a@x.test')), null, 'a repeat does not fill the gathering');
    const full = unique.add(row('b@x.test'));
    assert.deepEqual(
      full?.map((address) => [address.addressKey, address.rowCount]),
      [
        ['a@x.test', 2],
        ['b@x.test', 1],
        ['c@x.test', 1],
      ],
    );
    // A repeat after the hand-over starts again at one: the store adds it to what it holds.
    assert.equal(unique.add(row('a@x.test')), null);
    assert.deepEqual(
      unique.take().map((address) => [address.addressKey, address.firstRow, address.rowCount]),
      [['a@x.test', 5, 1]],
    );
  });
});
