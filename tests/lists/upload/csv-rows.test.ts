import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import {
  type CsvUploadOptions,
  MAX_COLUMNS,
  MAX_OTHER_CELL_BYTES,
  MAX_RECORD_CHARS,
  readCsvUpload,
} from '../../../src/lists/upload/csv-rows.ts';
import { UploadError } from '../../../src/lists/upload/upload-error.ts';
import type { ByteSource } from '../../../src/lists/upload/utf8.ts';
import { byteByByte, chunks, collect, heldOpen } from './sources.ts';

type Expected = { code?: string; field?: string | null; message?: string | RegExp };
async function read(source: ByteSource, options: Partial<CsvUploadOptions> = {}) {
  const upload = await readCsvUpload(source, { maxRows: 1000, ...options });
  return { ...upload, all: await collect(upload.rows) };
}

async function rejects(
  source: ByteSource,
  expected: Expected,
  options: Partial<CsvUploadOptions> = {},
): Promise<UploadError> {
  let caught: UploadError | undefined;
  await assert.rejects(
    () => read(source, options),
    (error: unknown) => {
      assert.ok(error instanceof UploadError, String(error));
      caught = error;
      for (const [key, value] of Object.entries(expected)) {
        const actual: unknown = error[key as keyof Expected];
        if (value instanceof RegExp) assert.match(String(actual), value);
        else assert.equal(actual, value, key);
      }
      return true;
    },
  );
  return caught!;
}

describe('readCsvUpload: layout', () => {
  it('reads a BOM, CRLF, quoted commas, quotes and line breaks, and skips empty lines', async () => {
    const text =
      '\uFEFFName,Email,Note\r\n"Doe, Jane",jane@example.com,"said ""hi""\r\nthen left"\r\n\r\n,bob@example.com,\r\n';
    const { header, hasHeader, emailIndex, all } = await read(chunks(text));
    assert.deepEqual(header, ['Name', 'Email', 'Note']);
    assert.equal(hasHeader, true);
    assert.equal(emailIndex, 1);
    assert.deepEqual(all, [
      { email: 'jane@example.com', fields: ['Doe, Jane', 'jane@example.com', 'said "hi"\r\nthen left'] },
      { email: 'bob@example.com', fields: ['', 'bob@example.com', ''] },
    ]);
  });

  it('reads LF, CR and mixed line ends alike', async () => {
    const { all } = await read(chunks('email,n\n"a@x.de",1\r\nb@x.de,2\rc@x.de,3\n\n'));
    assert.deepEqual(
      all.map((row) => row.fields),
      [
        ['a@x.de', '1'],
        ['b@x.de', '2'],
        ['c@x.de', '3'],
      ],
    );
  });

  it('without a header, takes the first column with an @ and names it in a synthetic header', async () => {
    const { header, hasHeader, all } = await read(chunks('Jane,jane@example.com,x\nBob,bob@example.com\n'));
    assert.equal(hasHeader, false);
    assert.deepEqual(header, ['column_1', 'email', 'column_3']);
    assert.deepEqual(
      all.map((row) => row.email),
      ['jane@example.com', 'bob@example.com'],
    );
  });

  it('takes the column by name (case-insensitive) or 1-based number', async () => {
    const text = 'id,Contact,Backup\n1,a@x.de,b@x.de\n';
    assert.deepEqual((await read(chunks(text), { column: 'backup' })).all[0]!.email, 'b@x.de');
    const byNumber = await read(chunks(text), { column: '2' });
    assert.equal(byNumber.hasHeader, true, 'the chosen cell holds no @: a header');
    assert.deepEqual(byNumber.all, [{ email: 'a@x.de', fields: ['1', 'a@x.de', 'b@x.de'] }]);
    const noHeader = await read(chunks('1,a@x.de\n2,b@x.de\n'), { column: '2' });
    assert.equal(noHeader.hasHeader, false);
    assert.deepEqual(noHeader.header, ['column_1', 'column_2']);
    assert.equal(noHeader.all.length, 2);
  });

  it('names a missing column clearly', async () => {
    await rejects(chunks('id,name\n1,Jane\n'), {
      code: 'validation_failed',
      field: 'column',
      message: /no email column/,
    });
    await rejects(
      chunks('id,email\n1,a@x.de\n'),
      { field: 'column', message: /no column named "mail_to"/ },
      {
        column: 'mail_to',
      },
    );
    await rejects(
      chunks('id,email\n1,a@x.de\n'),
      { field: 'column', message: /out of range/ },
      { column: '3' },
    );
    await rejects(
      chunks('id,email\n1,a@x.de\n'),
      { field: 'column', message: /out of range/ },
      { column: '0' },
    );
  });

  it('keeps short and long rows as uploaded; a short row may lack the address', async () => {
    const { all } = await read(chunks('name,email\nJane\nBob,bob@x.de,extra,more\n'));
    assert.deepEqual(all, [
      { email: '', fields: ['Jane'] },
      { email: 'bob@x.de', fields: ['Bob', 'bob@x.de', 'extra', 'more'] },
    ]);
  });

  it('trims the address but keeps the cell as uploaded', async () => {
    const { all } = await read(chunks('email\n  jane@x.de \n'));
    assert.deepEqual(all, [{ email: 'jane@x.de', fields: ['  jane@x.de '] }]);
  });
});

describe('readCsvUpload: limits and bad files', () => {
  it('rejects an empty file, blank lines only, and a header alone', async () => {
    await rejects(chunks(''), { code: 'validation_failed', field: 'file', message: /no rows/ });
    await rejects(chunks('\r\n\n\n'), { field: 'file', message: /no rows/ });
    await rejects(chunks('\uFEFFemail\r\n\r\n'), { field: 'file', message: /header but no rows/ });
  });

  it('accepts maxRows rows and rejects one more', async () => {
    assert.equal((await read(chunks('email\na@x\nb@x\nc@x\n'), { maxRows: 3 })).all.length, 3);
    await rejects(
      chunks('email\na@x\nb@x\nc@x\nd@x\n'),
      { code: 'validation_failed', message: /more than 3 rows/ },
      {
        maxRows: 3,
      },
    );
    await rejects(chunks('a@x\nb@x\n'), { message: /more than 1 rows/ }, { maxRows: 1 });
  });

  it('rejects bytes that are not UTF-8, never replacing them', async () => {
    const latin1 = Buffer.from('email,name\nj@x.de,Zo\xeb\n', 'latin1');
    await rejects(chunks(latin1), { code: 'bad_request', field: 'file', message: /UTF-8/ });
    await rejects(chunks(Buffer.from('email\n'), Buffer.from([0xed, 0xa0, 0x80, 0x0a])), {
      message: /UTF-8/,
    });
    await rejects(chunks(Buffer.from('email\na@x\n'), Buffer.from([0xc3])), { message: /UTF-8/ });
    await rejects(chunks(Buffer.from([0x61, 0x40, 0x62, 0xc0, 0x80])), { message: /UTF-8/ });
  });

  it('reads multi-byte characters split between chunks, one byte at a time', async () => {
    const text = '\uFEFFname,email\r\n"Zoë 😀, ñ",zoë@bücher.de\r\n日本,"日本@例え.jp"\r\n';
    const { header, all } = await read(byteByByte(text));
    assert.deepEqual(header, ['name', 'email']);
    assert.deepEqual(all, [
      { email: 'zoë@bücher.de', fields: ['Zoë 😀, ñ', 'zoë@bücher.de'] },
      { email: '日本@例え.jp', fields: ['日本', '日本@例え.jp'] },
    ]);
  });

  it('reads a row whose other cells hold up to 64 KB, split across chunks', async () => {
    const notes = 'x'.repeat(MAX_OTHER_CELL_BYTES - 10);
    const text = `email,notes,tag\na@x.de,"${notes}",0123456789\nb@x.de,short,t\n`;
    const parts: Buffer[] = [];
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 4096) parts.push(bytes.subarray(i, i + 4096));
    const { all } = await read(chunks(...parts));
    assert.equal(all.length, 2);
    assert.equal(all[0]!.fields[1], notes);
    assert.equal(all[1]!.email, 'b@x.de');
  });

  it('refuses a row whose other cells hold more than 64 KB, counted in UTF-8 bytes', async () => {
    // 22,000 characters of "é" are 44,000 bytes: with the plain notes, over the bound.
    const text = `email,a,b\nfirst@x.de,ok,ok\nsecond@x.de,${'é'.repeat(22_000)},${'x'.repeat(22_000)}\n`;
    await rejects(chunks(text), {
      code: 'validation_failed',
      field: 'file',
      message: /^row 2: the cells besides the address hold 66000 bytes: at most 65536/,
    });
  });

  it('refuses a row of more than 1,000 columns, even the header', async () => {
    const wide = (cell: string) => Array.from({ length: MAX_COLUMNS + 1 }, () => cell).join(',');
    await rejects(chunks(`email,${wide('h')}\na@x.de\n`), {
      code: 'validation_failed',
      field: 'file',
      message: /^the row starting on line 1 has more than 1000 columns: at most 1000/,
    });
    await rejects(chunks(`email,n\na@x.de,1\nb@x.de,${wide('')}\n`), {
      code: 'validation_failed',
      field: 'file',
      message: /^the row starting on line 3 has more than 1000 columns/,
    });
    const { all } = await read(
      chunks(`email${',c'.repeat(MAX_COLUMNS - 1)}\na@x.de${','.repeat(MAX_COLUMNS - 1)}\n`),
    );
    assert.equal(all[0]!.fields.length, MAX_COLUMNS);
  });

  it('refuses a 10 MB line (no line break, or one huge cell) at about 1 MB', async () => {
    await rejects(chunks(`email,notes\na@x.de,${'z'.repeat(10 * 1024 * 1024)}\n`), {
      code: 'bad_request',
      field: 'file',
      message: new RegExp(`longer than ${MAX_RECORD_CHARS} characters`),
    });
  });

  it('rejects a row over the record limit (an unclosed quote) with a clear error', async () => {
    await rejects(
      chunks(`email,notes\na@x.de,"${'y'.repeat(5000)}`),
      { code: 'bad_request', field: 'file', message: /longer than 1000 characters/ },
      { maxRecordChars: 1000 },
    );
  });

  it('reports malformed CSV as an upload error that quotes none of its cells', async () => {
    const error = await rejects(chunks('email,n\na@x.de,1\n"secret@x.de,1\n'), {
      code: 'bad_request',
      field: 'file',
      message: /^not readable as CSV at line \d+ \(CSV_QUOTE_NOT_CLOSED\)$/,
    });
    assert.doesNotMatch(error.message, /secret/);
  });

  it('reads a quote inside an unquoted cell as a plain character, as spreadsheets do', async () => {
    const { all } = await read(
      chunks('email,note\nfoo"bar@accept.test,a"b\n=HYPERLINK("x")@gmial.com,"quoted, ""really"""\n'),
    );
    assert.deepEqual(
      all.map((row) => row.fields),
      [
        ['foo"bar@accept.test', 'a"b'],
        ['=HYPERLINK("x")@gmial.com', 'quoted, "really"'],
      ],
    );
  });

  it('counts no delimiter or line end inside a quoted cell as a column or a row', async () => {
    const notes = `"${','.repeat(MAX_COLUMNS * 2)}\n${','.repeat(10)}"`;
    const { all } = await read(chunks(`email,notes,tail\na@x.de,${notes},end\n`));
    assert.equal(all.length, 1);
    assert.deepEqual(all[0]!.fields.slice(2), ['end']);
  });

  it('stops a row of millions of empty cells at the column cap, before the row ends', async () => {
    let sent = 0;
    async function* wideRow(): AsyncGenerator<Uint8Array> {
      const block = Buffer.from(','.repeat(64 * 1024));
      yield Buffer.from('email,name\na@x.de');
      for (let i = 0; i < 100; i++) {
        sent += block.length;
        yield block;
      }
    }
    await rejects(wideRow(), { code: 'validation_failed', message: /line 2 has more than 1000 columns/ });
    // The first block already holds the 1,001st cell: nothing past it was asked for.
    assert.equal(sent, 64 * 1024);
  });

  it('rejects an address cell over 1024 characters', async () => {
    await rejects(chunks(`email\na@x\n${'a'.repeat(1020)}@x.de\n`), {
      code: 'validation_failed',
      message: /row 2/,
    });
  });

  it('passes on a failure of the source itself unchanged', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('email\na@x\n');
      throw new Error('connection reset');
    }
    await assert.rejects(() => read(failing()), /connection reset/);
  });
});

describe('readCsvUpload: streaming', () => {
  it('reads a Node stream', async () => {
    const { all } = await read(Readable.from([Buffer.from('email\na@x\n'), Buffer.from('b@x\n')]));
    assert.deepEqual(
      all.map((row) => row.email),
      ['a@x', 'b@x'],
    );
  });

  it('yields rows before the source ends', async () => {
    const { state, source } = heldOpen('email\na@x\nb@x\n', 'c@x\n');
    const upload = await readCsvUpload(source, { maxRows: 10 });
    const first = await upload.rows.next();
    assert.deepEqual(first.value, { email: 'a@x', fields: ['a@x'] });
    assert.equal(state.ended, false);
    state.release();
    assert.deepEqual(
      (await collect(upload.rows)).map((row) => row.email),
      ['b@x', 'c@x'],
    );
    assert.equal(state.ended, true);
  });

  it('releases the source when the caller stops early', async () => {
    let closed = false;
    async function* endless(): AsyncGenerator<Uint8Array> {
      try {
        yield Buffer.from('email\n');
        for (let i = 0; ; i += 1) yield Buffer.from(`r${i}@x\n`);
      } finally {
        closed = true;
      }
    }
    const upload = await readCsvUpload(endless(), { maxRows: 10 });
    for await (const row of upload.rows) if (row.email === 'r2@x') break;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closed, true);
  });
});
