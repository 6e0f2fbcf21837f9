/**
 * A byte-level guard in front of the JSON tokenizer: every token is bounded in bytes before the
 * tokenizer sees it. The tokenizer re-reads a number (or `true`...) from its first byte each time
 * a chunk ends inside it, so 20 MB of digits cost it seconds of CPU per chunk; strings were only
 * bounded once decoded. This guard reads each byte once, whatever the chunking, and refuses a
 * number or literal over {@link MAX_BARE_TOKEN_BYTES}, an object key over {@link MAX_KEY_BYTES},
 * and a string over {@link MAX_STRING_BYTES}.
 */
import { UploadError } from './upload-error.ts';

/** A number or `true`/`false`/`null`: no real one is longer. */
export const MAX_BARE_TOKEN_BYTES = 64;
/** An object key, as sent (escapes included). */
export const MAX_KEY_BYTES = 1024;
/** A string value, as sent (escapes included): room for the longest string the scanner accepts. */
export const MAX_STRING_BYTES = 8 * 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BARE = new Uint8Array(256);
for (const c of '0123456789+-.eEtrufalsn') BARE[c.charCodeAt(0)] = 1;

/** Feeds chunks in order; throws UploadError (bad_request) at the first token over its bound. */
export class JsonTokenBounds {
  #inString = false;
  #escaped = false;
  #stringBytes = 0;
  #stringIsKey = false;
  #bareBytes = 0;
  /** True for each open object, false for each open array (deeper than 64 is refused later). */
  readonly #containers: boolean[] = [];
  #expectingKey = false;
  // Where the next quote and backslash of the current chunk are, found once each: searching again
  // from every string's start would make a chunk of many short strings quadratic.
  #nextQuote = -1;
  #nextBackslash = -1;

  /** Checks the next chunk. @throws UploadError */
  check(chunk: Uint8Array): void {
    this.#nextQuote = -1;
    this.#nextBackslash = -1;
    let i = 0;
    const length = chunk.length;
    while (i < length) {
      if (this.#inString) {
        i = this.#inStringFrom(chunk, i);
        continue;
      }
      const byte = chunk[i]!;
      if (BARE[byte] === 1) {
        this.#bareBytes += 1;
        if (this.#bareBytes > MAX_BARE_TOKEN_BYTES) {
          throw new UploadError(
            'bad_request',
            `The body holds a number or literal longer than ${MAX_BARE_TOKEN_BYTES} bytes`,
          );
        }
        i += 1;
        continue;
      }
      this.#bareBytes = 0;
      if (byte === QUOTE) {
        this.#inString = true;
        this.#stringBytes = 0;
        this.#stringIsKey = this.#expectingKey;
      } else if (byte === 0x7b /* { */) {
        this.#containers.push(true);
        this.#expectingKey = true;
      } else if (byte === 0x5b /* [ */) {
        this.#containers.push(false);
        this.#expectingKey = false;
      } else if (byte === 0x7d /* } */ || byte === 0x5d /* ] */) {
        this.#containers.pop();
        this.#expectingKey = false;
      } else if (byte === 0x2c /* , */) {
        this.#expectingKey = this.#containers.at(-1) === true;
      } else if (byte === 0x3a /* : */) {
        this.#expectingKey = false;
      }
      i += 1;
    }
  }

  /** Skips through a string to its closing quote (or the chunk's end); returns where it stopped. */
  #inStringFrom(chunk: Uint8Array, from: number): number {
    let i = from;
    if (this.#escaped) {
      this.#escaped = false;
      this.#count(1);
      i += 1;
    }
    while (i < chunk.length) {
      if (this.#nextQuote !== Infinity && this.#nextQuote < i) this.#nextQuote = find(chunk, QUOTE, i);
      if (this.#nextBackslash !== Infinity && this.#nextBackslash < i)
        this.#nextBackslash = find(chunk, BACKSLASH, i);
      const quote = this.#nextQuote === Infinity ? -1 : this.#nextQuote;
      const backslash = this.#nextBackslash === Infinity ? -1 : this.#nextBackslash;
      const stop = quote === -1 ? backslash : backslash === -1 ? quote : Math.min(quote, backslash);
      if (stop === -1) {
        this.#count(chunk.length - i);
        return chunk.length;
      }
      this.#count(stop - i);
      if (chunk[stop] === QUOTE) {
        this.#inString = false;
        return stop + 1;
      }
      // A backslash escapes the next byte, which may be in the next chunk.
      this.#count(1);
      if (stop + 1 >= chunk.length) {
        this.#escaped = true;
        return chunk.length;
      }
      this.#count(1);
      i = stop + 2;
    }
    return i;
  }

  #count(bytes: number): void {
    this.#stringBytes += bytes;
    const limit = this.#stringIsKey ? MAX_KEY_BYTES : MAX_STRING_BYTES;
    if (this.#stringBytes > limit) {
      throw new UploadError(
        'bad_request',
        this.#stringIsKey
          ? `The body holds an object key longer than ${MAX_KEY_BYTES} bytes`
          : `The body holds a string longer than ${MAX_STRING_BYTES} bytes`,
      );
    }
  }
}

/** The index of `byte` at or after `from`, Infinity when there is none. */
function find(chunk: Uint8Array, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at === -1 ? Infinity : at;
}
