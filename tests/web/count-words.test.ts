/** Counts in words: the noun is singular for exactly one, plural otherwise (zero included). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countWords } from '../../web/src/lib/count-words.ts';

test('one member, two members, no members, and thousands grouped', () => {
  assert.equal(countWords(1, 'member', 'members'), '1 member');
  assert.equal(countWords(2, 'member', 'members'), '2 members');
  assert.equal(countWords(0, 'recipient', 'recipients'), '0 recipients');
  assert.equal(countWords(1234, 'recipient', 'recipients'), `${(1234).toLocaleString()} recipients`);
});
