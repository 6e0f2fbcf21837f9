/**
 * `mailvet verify --file in.csv --out out.csv`: streams a CSV through the verifier with bounded
 * memory (a fixed window of rows in flight), keeps every original column and row order, and
 * appends the result columns.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { RESULT_COLUMNS, resultRowCells } from '../lists/results-format.ts';
import { type CsvLayout, detectLayout } from '../lists/upload/csv-layout.ts';
import { UploadError } from '../lists/upload/upload-error.ts';
import type { VerificationResult } from '../verification/report.ts';
import { mapOrdered } from './map-ordered.ts';
import { fileProblem } from './plain-errors.ts';
import { CsvInputError } from './usage-error.ts';

export interface CsvVerifyOptions {
  input: string;
  /** Output path; standard output when undefined. */
  output?: string | undefined;
  /** The email column's header name (case-insensitive) or 1-based number; found by header otherwise. */
  column?: string | undefined;
  concurrency: number;
  verify: (address: string) => Promise<VerificationResult>;
  /** Called as rows complete, with bytes read and the file's size. */
  onProgress?: (progress: { rows: number; bytesRead: number; totalBytes: number }) => void;
}

/** Verifies every row of a CSV file; resolves with the number of data rows written. */
export async function verifyCsvFile(options: CsvVerifyOptions): Promise<number> {
  const { size: totalBytes } = await stat(options.input);
  let bytesRead = 0;
  const source = createReadStream(options.input);
  source.on('data', (chunk) => {
    bytesRead += chunk.length;
  });
  const records = source.pipe(
    // A quote inside an unquoted cell (`foo"bar@example.com`) is a plain character, as spreadsheet
    // programs and the API's upload read it.
    parse({ bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: false }),
  );
  // `pipe` does not pass a read failure on: the parser is ended with it, so the run fails with it
  // instead of the process dying of an unhandled 'error' event.
  source.on('error', (error) => records.destroy(error));
  const output: Writable = options.output ? createWriteStream(options.output) : process.stdout;

  let rows = 0;
  async function* verifiedRows(): AsyncGenerator<string[]> {
    const iterator = records[Symbol.asyncIterator]() as AsyncIterator<string[]>;
    const first = await iterator.next();
    if (first.done) return;
    const layout = layoutOf(first.value, options.column);
    yield layout.hasHeader
      ? [...first.value, ...RESULT_COLUMNS]
      : [...layout.syntheticHeader, ...RESULT_COLUMNS];
    const dataRows = layout.hasHeader ? iterator : prepend(first.value, iterator);
    // Rows are lined up on the first one so the result columns stay under their headers.
    const width = first.value.length;
    const verified = mapOrdered(
      { [Symbol.asyncIterator]: () => dataRows },
      options.concurrency,
      async (row: string[]) => resultRowCells(row, width, await options.verify(row[layout.emailIndex] ?? '')),
    );
    for await (const row of verified) {
      rows += 1;
      options.onProgress?.({ rows, bytesRead, totalBytes });
      yield row;
    }
  }

  const writing = pipeline(Readable.from(verifiedRows()), stringify(), output, {
    end: output !== process.stdout,
  });
  await writing.catch((error: unknown) => {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('CSV_')) {
      throw new CsvInputError(`cannot read ${options.input} as CSV: ${error.message}`);
    }
    const { path } = error as NodeJS.ErrnoException;
    throw fileProblem(error, path === options.input ? 'read' : 'write') ?? error;
  });
  return rows;
}

/** The shared layout rules, with their errors worded for the command line. */
function layoutOf(firstRow: string[], column: string | undefined): CsvLayout {
  try {
    return detectLayout(firstRow, column);
  } catch (error) {
    if (!(error instanceof UploadError)) throw error;
    if (column === undefined) {
      throw new CsvInputError('no email column found: name it with --column (header name or 1-based number)');
    }
    throw new CsvInputError(error.message);
  }
}

async function* prepend<T>(first: T, rest: AsyncIterator<T>): AsyncGenerator<T> {
  yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}
