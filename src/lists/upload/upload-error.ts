/**
 * The one error an upload parser throws for anything the uploader must fix: unreadable bytes, bad
 * JSON or CSV, a missing email column, too many rows, a bad field value. Anything else a parser
 * throws is a bug or an I/O failure, so the HTTP layer can map this class alone to 400/422.
 */

/**
 * Which API error it becomes: `bad_request` (400) when the body cannot be
 * read as the format it claims to be; `validation_failed` (422) when it can, but its content breaks
 * a rule (missing or empty `emails`, too many rows, no email column, a bad entry);
 * `payload_too_large` (413) when it is over the upload's size limit.
 */
export type UploadErrorCode = 'bad_request' | 'payload_too_large' | 'validation_failed';

/** An upload the uploader must fix; `message` is written for them. */
export class UploadError extends Error {
  override readonly name = 'UploadError';

  /**
   * @param code - which API error this becomes
   * @param message - a human message, e.g. "Must hold at most 1000000 email addresses"
   * @param field - the field at fault as the API names it (`emails`, `emails[3]`, `name`,
   *   `webhook_url`, `file`, `column`), or null when the body as a whole is at fault
   */
  constructor(
    readonly code: UploadErrorCode,
    message: string,
    readonly field: string | null = null,
  ) {
    super(message);
  }
}
