/**
 * A token-level scanner for the list body `{"name", "emails": [...], "webhook_url"}`. The library
 * tokenizes and checks the JSON grammar; this scanner follows only the shape it needs (depth,
 * the root object's keys), so it never builds the `emails` array or any ignored value: memory is
 * bounded by the longest string whatever the body's size.
 */
import {
  type ParsedTokenInfo,
  Tokenizer,
  TokenizerError,
  TokenParser,
  TokenParserError,
  TokenType,
} from '@streamparser/json';
import { JsonTokenBounds } from './json-token-bounds.ts';
import { checkListName, checkWebhookUrl, isEmailEntry, MAX_EMAIL_LENGTH } from './list-fields.ts';
import { UploadError } from './upload-error.ts';

/**
 * Deepest nesting accepted. The list body needs 2; ignored keys get room to spare, while a body
 * of 100,000 `[` fails fast (and the grammar checker's per-value cost grows with depth).
 */
export const MAX_JSON_DEPTH = 64;
/** Longest string accepted anywhere in the body, in UTF-16 units: ignored keys are not a way in. */
export const MAX_JSON_STRING = 1024 * 1024;

const NOT_A_STRING = Symbol('container');

/** Scans a list body fed in chunks; emails found so far wait in {@link ListBodyScanner.found}. */
export class ListBodyScanner {
  /** Entries of `emails` found since the caller last emptied this array, in order. */
  found: string[] = [];
  /** The `name` field, checked and trimmed; undefined when absent or null. */
  name: string | undefined;
  /** The `webhook_url` field, checked; undefined when absent or null. */
  webhookUrl: string | undefined;
  /** Entries of `emails` seen so far. */
  emailCount = 0;

  readonly #maxRows: number;
  readonly #bounds = new JsonTokenBounds();
  readonly #tokenizer = new Tokenizer({ emitPartialTokens: true });
  // No paths: it emits nothing and drops each finished value from its parent, checking grammar only.
  readonly #grammar = new TokenParser({ paths: [], keepStack: false });
  #depth = 0;
  #started = false;
  #expectingKey = false;
  #key: string | null = null;
  #inEmails = false;
  #emailsSeen = false;
  #openedArray = false;

  constructor(maxRows: number) {
    this.#maxRows = maxRows;
    this.#tokenizer.onToken = (token) => this.#onToken(token);
  }

  /** Feeds the next chunk of UTF-8 bytes. @throws UploadError */
  write(chunk: Uint8Array): void {
    // Before the tokenizer: it re-reads an unfinished number from its start at every chunk.
    this.#bounds.check(chunk);
    try {
      this.#tokenizer.write(chunk);
    } catch (error) {
      throw asUploadError(error);
    }
  }

  /** Ends the body: it must have been one whole object with an `emails` array. @throws UploadError */
  end(): void {
    try {
      this.#tokenizer.end();
    } catch (error) {
      throw asUploadError(error);
    }
    if (!this.#started) throw new UploadError('bad_request', 'The body is empty: expected a JSON object');
    if (!this.#grammar.isEnded) {
      throw new UploadError('bad_request', 'The body is not valid JSON: it ends before its object does');
    }
    if (!this.#emailsSeen) throw new UploadError('validation_failed', 'Required', 'emails');
  }

  #onToken(info: ParsedTokenInfo): void {
    const { token, value } = info;
    if (info.partial) {
      // A long string shows here chunk by chunk: stop it before it is whole.
      if (token === TokenType.STRING && typeof value === 'string') this.#checkString(value);
      return;
    }
    this.#grammar.write(info);
    this.#started = true;
    const depth = this.#depth;
    switch (token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET:
        if (depth === 0) {
          if (token !== TokenType.LEFT_BRACE) throw notAnObject();
          this.#expectingKey = true;
        } else {
          this.#openedArray = token === TokenType.LEFT_BRACKET;
          this.#value(depth, NOT_A_STRING);
        }
        this.#depth = depth + 1;
        if (this.#depth > MAX_JSON_DEPTH) {
          throw new UploadError('bad_request', `The body is nested more than ${MAX_JSON_DEPTH} levels deep`);
        }
        return;
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        this.#depth = depth - 1;
        if (depth === 2 && this.#inEmails) {
          this.#inEmails = false;
          if (this.emailCount === 0) throw listError(this.#maxRows);
        }
        return;
      case TokenType.COLON:
        if (depth === 1) this.#expectingKey = false;
        return;
      case TokenType.COMMA:
        if (depth === 1) this.#expectingKey = true;
        return;
      default:
        if (depth === 0) throw notAnObject();
        if (typeof value === 'string') this.#checkString(value);
        if (depth === 1 && this.#expectingKey) this.#key = String(value);
        else this.#value(depth, value);
    }
  }

  /** A value starting at `depth`: a primitive, or NOT_A_STRING for an object or array. */
  #value(depth: number, value: unknown): void {
    if (depth === 1) {
      if (this.#key === 'emails') {
        if (this.#emailsSeen) throw new UploadError('validation_failed', 'Given more than once', 'emails');
        this.#emailsSeen = true;
        // NOT_A_STRING stands for `[` or `{`: an object is the wrong type too.
        if (value !== NOT_A_STRING || this.#openedArray !== true) throw listError(this.#maxRows);
        this.#inEmails = true;
      } else if (this.#key === 'name') {
        this.name = checkListName(value === NOT_A_STRING ? {} : value);
      } else if (this.#key === 'webhook_url') {
        this.webhookUrl = checkWebhookUrl(value === NOT_A_STRING ? {} : value);
      }
      return;
    }
    if (depth !== 2 || !this.#inEmails) return;
    const index = this.emailCount;
    this.emailCount += 1;
    if (this.emailCount > this.#maxRows) {
      throw new UploadError(
        'validation_failed',
        `Must hold at most ${this.#maxRows} email addresses`,
        'emails',
      );
    }
    if (!isEmailEntry(value))
      throw new UploadError('validation_failed', 'Invalid email format', `emails[${index}]`);
    this.found.push(value);
  }

  #checkString(value: string): void {
    if (this.#inEmails && this.#depth === 2 && value.length > 2 * MAX_EMAIL_LENGTH) {
      // Twice the limit in UTF-16 units is over it in code points whatever the characters.
      throw new UploadError('validation_failed', 'Invalid email format', `emails[${this.emailCount}]`);
    }
    if (value.length > MAX_JSON_STRING) {
      throw new UploadError(
        'bad_request',
        `The body holds a string longer than ${MAX_JSON_STRING} characters`,
      );
    }
  }
}

function notAnObject(): UploadError {
  return new UploadError('bad_request', 'The body must be a JSON object');
}

function listError(maxRows: number): UploadError {
  return new UploadError(
    'validation_failed',
    `Must be an array of 1 to ${maxRows} email addresses`,
    'emails',
  );
}

function asUploadError(error: unknown): unknown {
  if (error instanceof UploadError) return error;
  if (error instanceof TokenizerError || error instanceof TokenParserError) {
    return new UploadError('bad_request', `The body is not valid JSON: ${error.message}`);
  }
  return error;
}
