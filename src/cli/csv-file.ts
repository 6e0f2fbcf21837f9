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
import type { VerificationResult } from '../verification/report.ts';
import { mapOrdered } from './map-ordered.ts';

/** The columns appended to each row. */
export const RESULT_COLUMNS = [
  'mailvet_status',
  'mailvet_score',
  'mailvet_reason',
  'mailvet_suggestion',
  'mailvet_disposable',
  'mailvet_role_based',
  'mailvet_free_provider',
  'mailvet_mx_records',
  'mailvet_smtp',
  'mailvet_catch_all',
] as const;

const EMAIL_HEADERS = new Set([
  'email',
  'e-mail',
  'email_address',
  'emailaddress',
  'email address',
  'mail',
  'e_mail',
]);

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

/** A problem with the input file that the user must fix (bad column name, unreadable CSV). */
export class CsvInputError extends Error {}

/** Verifies every row of a CSV file; resolves with the number of data rows written. */
export async function verifyCsvFile(options: CsvVerifyOptions): Promise<number> {
  const { size: totalBytes } = await stat(options.input);
  let bytesRead = 0;
  const source = createReadStream(options.input);
  source.on('data', (chunk) => {
    bytesRead += chunk.length;
  });
  const records = source.pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: false }),
  );
  const output: Writable = options.output ? createWriteStream(options.output) : process.stdout;

  let rows = 0;
  async function* verifiedRows(): AsyncGenerator<string[]> {
    const iterator = records[Symbol.asyncIterator]() as AsyncIterator<string[]>;
    const first = await iterator.next();
    if (first.done) return;
    const layout = detectLayout(first.value, options.column);
    yield layout.hasHeader
      ? [...first.value, ...RESULT_COLUMNS]
      : [...layout.syntheticHeader, ...RESULT_COLUMNS];
    const dataRows = layout.hasHeader ? iterator : prepend(first.value, iterator);
    // Short rows are padded so the result columns stay under their headers.
    const width = first.value.length;
    const verified = mapOrdered(
      { [Symbol.asyncIterator]: () => dataRows },
      options.concurrency,
      async (row: string[]) => {
        const cells = row.length < width ? [...row, ...new Array<string>(width - row.length).fill('')] : row;
        return [...cells, ...resultCells(await options.verify(row[layout.emailIndex] ?? ''))];
      },
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
    throw error;
  });
  return rows;
}

interface Layout {
  hasHeader: boolean;
  emailIndex: number;
  syntheticHeader: string[];
}

function detectLayout(firstRow: string[], column: string | undefined): Layout {
  const syntheticHeader = firstRow.map((_, i) => `column_${i + 1}`);
  const headerIndex = firstRow.findIndex((cell) => EMAIL_HEADERS.has(cell.trim().toLowerCase()));
  if (column !== undefined) {
    if (/^\d+$/.test(column)) {
      const index = Number(column) - 1;
      if (index < 0 || index >= firstRow.length) throw new CsvInputError(`column ${column} is out of range`);
      return { hasHeader: headerIndex >= 0, emailIndex: index, syntheticHeader };
    }
    const named = firstRow.findIndex((cell) => cell.trim().toLowerCase() === column.trim().toLowerCase());
    if (named < 0)
      throw new CsvInputError(`no column named "${column}" in the header: ${firstRow.join(', ')}`);
    return { hasHeader: true, emailIndex: named, syntheticHeader };
  }
  if (headerIndex >= 0) return { hasHeader: true, emailIndex: headerIndex, syntheticHeader };
  const withAt = firstRow.findIndex((cell) => cell.includes('@'));
  if (withAt >= 0) {
    syntheticHeader[withAt] = 'email';
    return { hasHeader: false, emailIndex: withAt, syntheticHeader };
  }
  throw new CsvInputError('no email column found: name it with --column (header name or 1-based number)');
}

async function* prepend<T>(first: T, rest: AsyncIterator<T>): AsyncGenerator<T> {
  yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

function resultCells(result: VerificationResult): string[] {
  const { checks } = result;
  return [
    result.status,
    String(result.score),
    result.reason,
    checks.suggestions[0] ?? '',
    String(checks.disposable),
    String(checks.role_based),
    String(checks.free_provider),
    String(checks.mx_records),
    checks.smtp,
    checks.catch_all === null ? '' : String(checks.catch_all),
  ];
}
