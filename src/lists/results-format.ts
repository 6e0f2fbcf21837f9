/**
 * Result downloads, streamed: a list's rows go out as they are read from the store, in upload
 * order, so a million-row export holds one batch in memory. Shared with `mailvet verify --file`,
 * which writes the same result columns.
 *
 * A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is taken for a formula by
 * spreadsheets, and an uploaded list is attacker-shaped text (so is our own suggestion cell, built
 * from the uploaded local part): by default such cells are prefixed with `'` (OWASP's CSV
 * injection advice), which spreadsheets show as text. `raw` exports the cells untouched.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { VerificationResult } from '../verification/report.ts';

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

/** One row to export: its cells as uploaded (null for a JSON upload) and its result, if any yet. */
export interface ExportRow {
  /** 1-based row number in the upload. */
  rowNumber: number;
  /** The address as uploaded (trimmed). */
  email: string;
  fields: readonly string[] | null;
  /** Null while the row's address is not verified (a paused or cancelled list). */
  result: VerificationResult | null;
}

/** The cells under {@link RESULT_COLUMNS} for one result; empty cells when there is none yet. */
export function resultCells(result: VerificationResult | null): string[] {
  if (result === null) return RESULT_COLUMNS.map(() => '');
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

/**
 * A row's cells with its result cells, lined up under a header of `width` uploaded columns: a short
 * row is padded; a row longer than the header keeps its extra cells after the result cells, so the
 * results stay under their headers and no uploaded cell is lost.
 */
export function resultRowCells(
  fields: readonly string[],
  width: number,
  result: VerificationResult | null,
): string[] {
  const cells = fields.slice(0, width);
  while (cells.length < width) cells.push('');
  return [...cells, ...resultCells(result), ...fields.slice(width)];
}

export interface ResultsCsvOptions {
  /** Start with a UTF-8 byte order mark, for spreadsheets that assume another encoding without one. */
  bom?: boolean;
  /** Leave formula-like cells as they are (default: prefixed with `'`). */
  raw?: boolean;
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** The cell, prefixed with `'` when a spreadsheet would run it as a formula. */
export function formulaSafeCell(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

// Rows per csv-stringify call and per chunk pushed: few calls, small chunks.
const BATCH_ROWS = 256;

/**
 * The CSV download: the upload's header (`email` alone for a JSON upload, whose rows have no
 * cells) followed by {@link RESULT_COLUMNS}, then one line per row in the order given. An error
 * from `rows` destroys the stream with that error.
 */
export function resultsCsv(
  header: readonly string[] | null,
  rows: AsyncIterable<Pick<ExportRow, 'email' | 'fields' | 'result'>>,
  options: ResultsCsvOptions = {},
): Readable {
  const columns = header ?? ['email'];
  const cellsOf = options.raw ? (cells: string[]) => cells : (cells: string[]) => cells.map(formulaSafeCell);
  async function* lines(): AsyncGenerator<string> {
    yield (options.bom ? '\uFEFF' : '') + stringify([cellsOf([...columns, ...RESULT_COLUMNS])]);
    let batch: string[][] = [];
    for await (const row of rows) {
      batch.push(cellsOf(resultRowCells(row.fields ?? [row.email], columns.length, row.result)));
      if (batch.length >= BATCH_ROWS) {
        yield stringify(batch);
        batch = [];
      }
    }
    if (batch.length > 0) yield stringify(batch);
  }
  return Readable.from(lines(), { objectMode: false });
}

/**
 * The JSON download: an array with one object per row, `{"row": n, "email": "...", "result":
 * <verification result or null>}`, written element by element as the rows come.
 * An error from `rows` destroys the stream with that error.
 */
export function resultsJson(
  rows: AsyncIterable<Pick<ExportRow, 'rowNumber' | 'email' | 'result'>>,
): Readable {
  async function* text(): AsyncGenerator<string> {
    let chunk = '[';
    let first = true;
    let count = 0;
    for await (const row of rows) {
      const element = JSON.stringify({ row: row.rowNumber, email: row.email, result: row.result });
      chunk += first ? `\n${element}` : `,\n${element}`;
      first = false;
      count += 1;
      if (count % BATCH_ROWS === 0) {
        yield chunk;
        chunk = '';
      }
    }
    yield `${chunk}${first ? '' : '\n'}]\n`;
  }
  return Readable.from(text(), { objectMode: false });
}
