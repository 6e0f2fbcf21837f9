import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectLayout, EMAIL_HEADERS } from '../../../src/lists/upload/csv-layout.ts';
import { UploadError } from '../../../src/lists/upload/upload-error.ts';

describe('detectLayout', () => {
  it('finds the email column by any of its usual header names', () => {
    for (const name of EMAIL_HEADERS) {
      assert.deepEqual(detectLayout(['id', ` ${name.toUpperCase()} `]), {
        hasHeader: true,
        emailIndex: 1,
        syntheticHeader: ['column_1', 'column_2'],
      });
    }
  });

  it('without a header, takes the first cell holding an @', () => {
    assert.deepEqual(detectLayout(['Jane', 'jane@x.de', 'j2@x.de']), {
      hasHeader: false,
      emailIndex: 1,
      syntheticHeader: ['column_1', 'email', 'column_3'],
    });
  });

  it('takes a named column as a header, a numbered one as a header only when its cell has no @', () => {
    assert.equal(detectLayout(['id', 'Contact'], 'contact').emailIndex, 1);
    assert.deepEqual(detectLayout(['id', 'Contact'], '2'), {
      hasHeader: true,
      emailIndex: 1,
      syntheticHeader: ['column_1', 'column_2'],
    });
    assert.equal(detectLayout(['1', 'a@x.de'], '2').hasHeader, false);
    assert.equal(detectLayout(['email', 'b@x.de'], '2').hasHeader, true, 'an email header name says header');
  });

  it('throws an UploadError on the column field when none fits', () => {
    const check = (run: () => unknown, message: RegExp) =>
      assert.throws(run, (error: unknown) => {
        assert.ok(error instanceof UploadError);
        assert.equal(error.field, 'column');
        assert.equal(error.code, 'validation_failed');
        assert.match(error.message, message);
        return true;
      });
    check(() => detectLayout(['id', 'name']), /no email column found/);
    check(
      () => detectLayout(['id', 'email'], 'mail_to'),
      /no column named "mail_to" in the header: id, email/,
    );
    check(() => detectLayout(['id', 'x'.repeat(10_000)], 'mail_to'), /…$/);
    check(() => detectLayout(['a@x.de'], '2'), /column 2 is out of range/);
  });
});
