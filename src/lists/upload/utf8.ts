/**
 * Strict UTF-8 checking of an upload, chunk by chunk. Invalid bytes are an error the uploader
 * sees, never silently replaced with U+FFFD: a replaced byte would turn into a different address.
 */
import { UploadError } from './upload-error.ts';

/** What an upload body can be read from: a Node stream or any async iterable of chunks. */
export type ByteSource = AsyncIterable<Uint8Array | string>;

/**
 * Passes `source` through as bytes, failing as soon as they stop being UTF-8. The parsers
 * downstream decode again themselves; checking here keeps the error one clear message for both
 * formats. A character split between chunks is passed on whole, in the later chunk; one cut off
 * at the end of the source is an error.
 *
 * @param field - the field named in the error (`file` for a CSV, null for a JSON body)
 * @throws UploadError (`bad_request`) on bytes that are not UTF-8.
 */
export async function* checkUtf8(source: ByteSource, field: string | null): AsyncGenerator<Uint8Array> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  // The start of a character cut off at a chunk's end: held back, so downstream sees whole ones.
  let carry: Uint8Array = new Uint8Array(0);
  const invalid = (start: number, end: number) =>
    new UploadError(
      'bad_request',
      `not valid UTF-8 (bad bytes between offsets ${start} and ${end}): send or save it as UTF-8`,
      field,
    );
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    try {
      decoder.decode(bytes, { stream: true });
    } catch {
      throw invalid(offset - carry.length, offset + bytes.length);
    }
    const joined = carry.length === 0 ? bytes : Buffer.concat([carry, bytes]);
    const whole = completeLength(joined);
    carry = new Uint8Array(joined.subarray(whole)); // a copy: a view would pin the whole chunk
    offset += bytes.length;
    if (whole > 0) yield joined.subarray(0, whole);
  }
  if (carry.length > 0) throw invalid(offset - carry.length, offset);
}

/** Length of `bytes` without a multi-byte character cut off at its end (the decoder checks the rest). */
function completeLength(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    if (byte < 0x80) return bytes.length;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return back < needed ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
