/**
 * Streaming read of a JSON list body `{"name"?, "emails": [...], "webhook_url"?}`: the addresses
 * come out in order as the bytes arrive, so the caller can store them in batches without the
 * array ever being whole in memory. `name` and `webhook_url` may come before or after `emails`,
 * so they are known only once the body has been read to its end.
 */
import { ListBodyScanner } from './json-scanner.ts';
import { type ByteSource, checkUtf8 } from './utf8.ts';

export { MAX_JSON_DEPTH, MAX_JSON_STRING } from './json-scanner.ts';

export interface JsonUploadOptions {
  /** Most entries accepted in `emails`. */
  maxRows: number;
}

/** The body's other fields, checked. */
export interface JsonListFields {
  /**
   * `name`, trimmed (1 to 200 characters); undefined when absent or null, for the caller to
   * default (e.g. to `DEFAULT_LIST_NAME` of list-fields.ts).
   */
  name: string | undefined;
  /** `webhook_url`, an http(s) URL; undefined when absent or null. */
  webhookUrl: string | undefined;
  /** How many entries `emails` held. */
  count: number;
}

/** A JSON list body being read. */
export interface JsonUpload {
  /**
   * The entries of `emails`, in order, as submitted (not trimmed). Iterating it to its end reads
   * the whole body and checks it; it throws `UploadError` as soon as something is wrong:
   * - `bad_request` (field null): not UTF-8, not JSON, not an object, nested over
   *   {@link MAX_JSON_DEPTH} levels, a string over {@link MAX_JSON_STRING} characters;
   * - `validation_failed`, field `emails`: missing, not an array, empty, over `maxRows` entries,
   *   given twice; field `emails[i]` ("Invalid email format"): an entry that is not a string with
   *   something other than white space, of at most 1024 characters, well-formed (an unpaired
   *   `\ud800` escape is rejected: UTF-8 cannot carry it);
   * - `validation_failed`, field `name` or `webhook_url`: see checkListName, checkWebhookUrl.
   * Unknown keys are ignored (their values are checked as JSON, never kept).
   */
  emails: AsyncGenerator<string, void, undefined>;
  /** The other fields; only once `emails` has been read to its end (throws before). */
  fields(): JsonListFields;
}

/**
 * Starts reading a JSON list body from `source` (a request stream, bytes or strings).
 * Nothing is read until `emails` is iterated.
 */
export function readJsonUpload(source: ByteSource, options: JsonUploadOptions): JsonUpload {
  const scanner = new ListBodyScanner(options.maxRows);
  let finished = false;
  async function* emails(): AsyncGenerator<string, void, undefined> {
    for await (const chunk of checkUtf8(source, null)) {
      scanner.write(chunk);
      // One chunk's addresses at a time: bounded by the chunk size.
      const batch = scanner.found;
      scanner.found = [];
      yield* batch;
    }
    scanner.end();
    finished = true;
  }
  return {
    emails: emails(),
    fields() {
      if (!finished) throw new Error('readJsonUpload: read `emails` to its end before asking for the fields');
      return { name: scanner.name, webhookUrl: scanner.webhookUrl, count: scanner.emailCount };
    },
  };
}
