/**
 * Bounds the number of cells in a CSV record while its bytes stream by, before the parser sees
 * them. csv-parse builds a record's array of cells whole and bounds a record by the characters of
 * its cells, not by their number: a row of a million empty cells (a million commas) costs hundreds
 * of megabytes before any check on the finished record can run. This scan counts the delimiters of
 * the record being read and stops the upload as soon as it holds more than the cap.
 *
 * It follows the parser's reading of quotes (csv-parse with `relax_quotes`): a quote opens a
 * quoted cell only at the cell's start; inside one, `""` is a quote and a quote before a comma or a
 * line end closes it; a quote anywhere else is a plain character, as spreadsheet programs read it.
 * Delimiters and line ends inside a quoted cell belong to the cell. The bytes it looks for are
 * ASCII, which UTF-8 never uses inside a multi-byte character, so it reads bytes, not text.
 */
import { UploadError } from './upload-error.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

enum State {
  CellStart,
  Unquoted,
  Quoted,
  /** A quote seen inside a quoted cell: an escaped quote, the cell's end, or a plain character. */
  QuoteInQuoted,
}

/**
 * Passes `source` through unchanged, failing when a record holds more than `maxColumns` cells.
 *
 * @throws UploadError (`validation_failed`, field `file`) naming the line where the record starts.
 */
export async function* boundCsvWidth(
  source: AsyncIterable<Uint8Array>,
  maxColumns: number,
): AsyncGenerator<Uint8Array> {
  let state = State.CellStart;
  let cells = 1;
  let line = 1;
  let recordLine = 1;
  let lastWasCr = false;
  for await (const chunk of source) {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      // Physical lines, for the message: CRLF is one line end, a lone CR or LF one each.
      if (byte === LF) {
        if (!lastWasCr) line++;
      } else if (byte === CR) line++;
      lastWasCr = byte === CR;
      switch (state) {
        case State.Quoted:
          if (byte === QUOTE) state = State.QuoteInQuoted;
          continue;
        case State.QuoteInQuoted:
          if (byte === QUOTE) {
            state = State.Quoted;
            continue;
          }
          if (byte !== COMMA && byte !== LF && byte !== CR) {
            state = State.Unquoted;
            continue;
          }
          break;
        case State.CellStart:
          if (byte === QUOTE) {
            state = State.Quoted;
            continue;
          }
          break;
        case State.Unquoted:
          break;
      }
      if (byte === COMMA) {
        state = State.CellStart;
        if (++cells > maxColumns) {
          throw new UploadError(
            'validation_failed',
            `the row starting on line ${recordLine} has more than ${maxColumns} columns: at most ${maxColumns} are accepted`,
            'file',
          );
        }
      } else if (byte === LF || byte === CR) {
        state = State.CellStart;
        cells = 1;
        recordLine = line;
      } else {
        state = State.Unquoted;
      }
    }
    yield chunk;
  }
}
