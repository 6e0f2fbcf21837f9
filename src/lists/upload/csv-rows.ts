/**
 * Streaming read of an uploaded CSV list: rows come out one at a time, in file order, as the
 * bytes arrive, so memory stays bounded by the longest row whatever the file's size.
 */
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { type CsvLayout, detectLayout } from './csv-layout.ts';
import { boundCsvWidth } from './csv-width.ts';
import { codePointLength, MAX_EMAIL_LENGTH } from './list-fields.ts';
import { UploadError } from './upload-error.ts';
import { type ByteSource, checkUtf8 } from './utf8.ts';

/**
 * The bounds on one row. A row is parsed whole into memory, a batch of rows is held until it is
 * stored, and each cell becomes a string with its own overhead: a file of very wide rows drove a
 * server to gigabytes of memory. So a row may be about 1 MB of text (a clear error, not unbounded
 * memory, for a file with no line breaks or an unclosed quote), hold 1,000 columns, and carry
 * 64 KB besides its address: far above what a contact export holds (a few dozen columns of names,
 * companies and notes).
 */
export const MAX_RECORD_CHARS = 1_000_000;
export const MAX_COLUMNS = 1000;
export const MAX_OTHER_CELL_BYTES = 64 * 1024;

export interface CsvUploadOptions {
  /** The email column's header name (case-insensitive) or 1-based number; found otherwise. */
  column?: string | undefined;
  /** Most data rows accepted. */
  maxRows: number;
  /** Longest row, in characters; {@link MAX_RECORD_CHARS} by default. */
  maxRecordChars?: number | undefined;
  /** Most cells in a row; {@link MAX_COLUMNS} by default. */
  maxColumns?: number | undefined;
  /** Most UTF-8 bytes in a row's cells other than the address; {@link MAX_OTHER_CELL_BYTES} by default. */
  maxOtherCellBytes?: number | undefined;
}

/** One data row: its address (trimmed) and every cell as uploaded. */
export interface CsvRow {
  email: string;
  fields: string[];
}

/** An uploaded CSV: its header, known once the first rows are read, then the rows. */
export interface CsvUpload {
  /** The file's own header, or `column_1…` (with `email` at the address column) when it had none. */
  header: string[];
  /** Whether the file had a header row. */
  hasHeader: boolean;
  /** 0-based index of the email column. */
  emailIndex: number;
  /**
   * The data rows, in order. Iterate it to its end (or stop it with `return()`): that is what
   * releases the source. Throws {@link UploadError} mid-way on a bad row or too many rows.
   */
  rows: AsyncGenerator<CsvRow, void, undefined>;
}

/**
 * Starts reading a CSV upload: resolves once the header and the first data row are read, so a file
 * with no usable rows fails before the caller stores anything. Accepts a UTF-8 byte order mark,
 * CRLF, LF or CR line ends (even mixed), quoted cells holding commas, quotes and line breaks, rows of varying
 * lengths; empty lines are skipped.
 *
 * @throws UploadError (field `file` or `column`): not UTF-8, not CSV, a row over the size limit,
 *   no email column, no data rows, more than `maxRows` rows, a row with more than `maxColumns`
 *   cells or more than `maxOtherCellBytes` besides its address, an address cell over 1024 characters.
 */
export async function readCsvUpload(source: ByteSource, options: CsvUploadOptions): Promise<CsvUpload> {
  const maxRecordChars = options.maxRecordChars ?? MAX_RECORD_CHARS;
  const maxColumns = options.maxColumns ?? MAX_COLUMNS;
  const maxOtherCellBytes = options.maxOtherCellBytes ?? MAX_OTHER_CELL_BYTES;
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    // Files mix line ends (LF rows appended to a CRLF file; CR from old Mac spreadsheets), and
    // auto-detection would fix one from the first line. A CRLF split between chunks may read as
    // CR then an empty line, which is skipped.
    record_delimiter: ['\r\n', '\n', '\r'],
    max_record_size: maxRecordChars,
    // A quote inside an unquoted cell (`foo"bar@example.com`, `=HYPERLINK("x")`) is a plain
    // character, as spreadsheet programs read it; files exported from them and CRMs hold such cells.
    relax_quotes: true,
  });
  // The cell count is bounded while a record streams (boundCsvWidth), not once it is whole.
  const input = Readable.from(boundCsvWidth(checkUtf8(source, 'file'), maxColumns), { objectMode: false });
  // pipe() does not carry errors downstream: the parser must fail with its input.
  input.once('error', (error) => parser.destroy(error));
  input.pipe(parser);
  const records = parser[Symbol.asyncIterator]() as AsyncIterator<string[]>;
  const release = () => {
    input.destroy();
    parser.destroy();
  };
  const next = async (): Promise<string[] | undefined> => {
    try {
      const record = await records.next();
      return record.done ? undefined : record.value;
    } catch (error) {
      release();
      throw asUploadError(error, maxRecordChars);
    }
  };

  let header: string[];
  let layout: CsvLayout;
  let first: string[] | undefined;
  try {
    const firstRecord = await next();
    if (firstRecord === undefined)
      throw new UploadError('validation_failed', 'the file holds no rows', 'file');
    checkWidth(firstRecord, 0, maxColumns);
    layout = detectLayout(firstRecord, options.column);
    header = layout.hasHeader ? firstRecord : layout.syntheticHeader;
    first = layout.hasHeader ? await next() : firstRecord;
    if (first === undefined) {
      throw new UploadError('validation_failed', 'the file holds a header but no rows', 'file');
    }
  } catch (error) {
    release();
    throw error;
  }
  const { emailIndex } = layout;

  async function* rows(): AsyncGenerator<CsvRow, void, undefined> {
    try {
      let count = 0;
      let record = first;
      first = undefined; // not kept for the whole read
      for (; record !== undefined; record = await next()) {
        count += 1;
        if (count > options.maxRows) {
          throw new UploadError(
            'validation_failed',
            `the file holds more than ${options.maxRows} rows`,
            'file',
          );
        }
        checkWidth(record, count, maxColumns);
        checkOtherCells(record, emailIndex, count, maxOtherCellBytes);
        const email = (record[emailIndex] ?? '').trim();
        if (codePointLength(email, MAX_EMAIL_LENGTH) > MAX_EMAIL_LENGTH) {
          throw new UploadError(
            'validation_failed',
            `row ${count}: the address cell is over ${MAX_EMAIL_LENGTH} characters`,
            'file',
          );
        }
        yield { email, fields: record };
      }
    } finally {
      release();
    }
  }
  return { header, hasHeader: layout.hasHeader, emailIndex, rows: rows() };
}

/** Row `row` (0: the first record, header or not) has at most `maxColumns` cells. */
function checkWidth(record: readonly string[], row: number, maxColumns: number): void {
  if (record.length <= maxColumns) return;
  const which = row === 0 ? 'the first row' : `row ${row}`;
  throw new UploadError(
    'validation_failed',
    `${which} has ${record.length} columns: at most ${maxColumns} are accepted`,
    'file',
  );
}

/** The cells of data row `row` other than its address hold at most `limit` UTF-8 bytes. */
function checkOtherCells(record: readonly string[], emailIndex: number, row: number, limit: number): void {
  let bytes = 0;
  for (let i = 0; i < record.length; i++) {
    if (i !== emailIndex) bytes += Buffer.byteLength(record[i]!);
  }
  if (bytes > limit) {
    throw new UploadError(
      'validation_failed',
      `row ${row}: the cells besides the address hold ${bytes} bytes: at most ${limit} are accepted`,
      'file',
    );
  }
}

function asUploadError(error: unknown, maxRecordChars: number): unknown {
  if (error instanceof UploadError) return error;
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    if (error.code === 'CSV_MAX_RECORD_SIZE') {
      return new UploadError(
        'bad_request',
        `a row is longer than ${maxRecordChars} characters (is a quote left open?)`,
        'file',
      );
    }
    if (error instanceof CsvError) {
      // csv-parse's own message quotes the cell it stopped at: the line and the code only, so no
      // uploaded value reaches a response or a log line.
      const line = typeof error.lines === 'number' ? ` at line ${error.lines}` : '';
      return new UploadError('bad_request', `not readable as CSV${line} (${error.code})`, 'file');
    }
  }
  return error;
}
