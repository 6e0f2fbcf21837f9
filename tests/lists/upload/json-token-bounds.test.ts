import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  JsonTokenBounds,
  MAX_BARE_TOKEN_BYTES,
  MAX_KEY_BYTES,
  MAX_STRING_BYTES,
} from '../../../src/lists/upload/json-token-bounds.ts';
import { UploadError } from '../../../src/lists/upload/upload-error.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `text` in chunks of `size` bytes; returns the error thrown, if any. */
function feed(text: string, size = 65536): UploadError | null {
  const bounds = new JsonTokenBounds();
  const all = bytes(text);
  try {
    for (let i = 0; i < all.length; i += size) bounds.check(all.subarray(i, i + size));
    return null;
  } catch (error) {
    if (error instanceof UploadError) return error;
    throw error;
  }
}

describe('JsonTokenBounds', () => {
  it('refuses a number or literal one byte over the bound, however it is chunked', () => {
    const ok = `{"n": ${'9'.repeat(MAX_BARE_TOKEN_BYTES)}}`;
    const long = `{"n": ${'9'.repeat(MAX_BARE_TOKEN_BYTES + 1)}}`;
    for (const size of [1, 7, 65536]) {
      assert.equal(feed(ok, size), null);
      assert.match(feed(long, size)?.message ?? '', /number or literal longer than 64 bytes/);
      assert.equal(feed(long, size)?.code, 'bad_request');
    }
    assert.notEqual(feed(`[${'t'.repeat(100)}]`), null);
  });

  it('stops a 20 MB number within the first chunk', () => {
    const bounds = new JsonTokenBounds();
    bounds.check(bytes('{"emails": ["a@b.co"], "x": '));
    assert.throws(() => bounds.check(new Uint8Array(65536).fill(0x39)), UploadError);
  });

  it('bounds object keys tighter than string values', () => {
    assert.match(feed(`{"${'k'.repeat(MAX_KEY_BYTES + 1)}": 1}`)?.message ?? '', /object key longer/);
    assert.equal(feed(`{"k": "${'v'.repeat(MAX_KEY_BYTES + 1)}"}`), null);
    // After a comma in an object the next string is a key again; in an array it is a value.
    assert.notEqual(feed(`{"a": 1, "${'k'.repeat(MAX_KEY_BYTES + 1)}": 1}`), null);
    assert.equal(feed(`{"a": ["x", "${'v'.repeat(MAX_KEY_BYTES + 1)}"]}`), null);
  });

  it('bounds string values, counting escapes as sent', () => {
    const error = feed(`["${'x'.repeat(MAX_STRING_BYTES + 1)}"]`);
    assert.match(error?.message ?? '', /string longer than/);
  });

  it('follows escapes across chunk ends: an escaped quote does not end the string', () => {
    const text = `{"k\\"${'k'.repeat(MAX_KEY_BYTES)}": 1}`;
    for (const size of [1, 2, 3, 65536]) assert.notEqual(feed(text, size), null, `chunks of ${size}`);
    const digits = `["a\\"b", ${'1'.repeat(10)}, "c\\\\", ${'2'.repeat(MAX_BARE_TOKEN_BYTES)}]`;
    for (const size of [1, 2, 3]) assert.equal(feed(digits, size), null, `chunks of ${size}`);
  });

  it('leaves digits and letters inside strings alone', () => {
    assert.equal(feed(`{"emails": ["${'1'.repeat(500)}@example.com", "true${'e'.repeat(300)}@x.io"]}`), null);
  });
});
