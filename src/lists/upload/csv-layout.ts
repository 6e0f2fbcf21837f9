/**
 * Where the email addresses are in a CSV file, decided from its first record alone (so a file is
 * read once, as a stream): shared by list uploads and `mailvet verify --file`.
 */
import { UploadError } from './upload-error.ts';

/** Header cells (trimmed, lower-cased) that name the email column. */
export const EMAIL_HEADERS: ReadonlySet<string> = new Set([
  'email',
  'e-mail',
  'email_address',
  'emailaddress',
  'email address',
  'mail',
  'e_mail',
]);

/** How a CSV file is laid out. */
export interface CsvLayout {
  /** Whether the first record is a header (otherwise it is the first data row). */
  hasHeader: boolean;
  /** 0-based index of the email column. */
  emailIndex: number;
  /** `column_1`, `column_2`, …, with `email` at the email column when it was found by its `@`. */
  syntheticHeader: string[];
}

/**
 * Finds the email column from the file's first record:
 * - `column` given as a 1-based number: that column; the first record is a header when one of its
 *   cells is an email header name, or when the chosen cell holds no `@` (a data row would);
 * - `column` given as a name: the header cell of that name (case-insensitive, trimmed);
 * - otherwise the header cell that is an email header name (`email`, `e-mail`, …);
 * - otherwise, with no header, the first cell of the first record that holds an `@`.
 *
 * @throws UploadError (field `column`) when no email column can be found.
 */
export function detectLayout(firstRow: readonly string[], column?: string): CsvLayout {
  const syntheticHeader = firstRow.map((_, i) => `column_${i + 1}`);
  const headerIndex = firstRow.findIndex((cell) => EMAIL_HEADERS.has(cell.trim().toLowerCase()));
  if (column !== undefined && column.trim() !== '') {
    const wanted = column.trim();
    if (/^\d+$/.test(wanted)) {
      const index = Number(wanted) - 1;
      if (index < 0 || index >= firstRow.length) {
        throw new UploadError(
          'validation_failed',
          `column ${wanted} is out of range: the first row has ${firstRow.length} column(s)`,
          'column',
        );
      }
      const hasHeader = headerIndex >= 0 || !firstRow[index]!.includes('@');
      return { hasHeader, emailIndex: index, syntheticHeader };
    }
    const named = firstRow.findIndex((cell) => cell.trim().toLowerCase() === wanted.toLowerCase());
    if (named < 0) {
      throw new UploadError(
        'validation_failed',
        `no column named "${wanted}" in the header: ${preview(firstRow)}`,
        'column',
      );
    }
    return { hasHeader: true, emailIndex: named, syntheticHeader };
  }
  if (headerIndex >= 0) return { hasHeader: true, emailIndex: headerIndex, syntheticHeader };
  const withAt = firstRow.findIndex((cell) => cell.includes('@'));
  if (withAt >= 0) {
    syntheticHeader[withAt] = 'email';
    return { hasHeader: false, emailIndex: withAt, syntheticHeader };
  }
  throw new UploadError(
    'validation_failed',
    'no email column found: no header cell is named like an email column and the first row holds no "@"; ' +
      'name the column (its header name or 1-based number)',
    'column',
  );
}

// A header may be huge (a 10 MB cell): an error message shows its start only.
function preview(row: readonly string[]): string {
  const text = row.join(', ');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
