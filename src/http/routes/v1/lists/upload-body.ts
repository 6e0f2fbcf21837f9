/**
 * Reading an upload's body as a stream: a timeout between chunks, a byte cap, and the CSV file of a
 * multipart form.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import { UploadError } from '../../../../lists/upload/upload-error.ts';
import { ApiError } from '../../../errors.ts';

/** How long an upload's body may take: between chunks, and in all (from `startedAt`, performance.now()). */
export interface UploadTimeouts {
  idleMs: number;
  totalMs: number;
  startedAt: number;
}

/**
 * Passes `source` through, failing with 408 `request_timeout` when the client sends nothing for
 * `idleMs`, or once the upload has taken `totalMs` in all (a trickle of a byte a minute must not
 * hold a socket and an unfinished list for days). The silence clock runs only while a chunk is
 * awaited, not while the reader stores the previous ones. After a timeout the source is left as
 * it is: the route answers 408 with `Connection: close`, and the server closes the socket once
 * that is sent.
 */
export async function* withTimeouts<T>(
  source: AsyncIterable<T>,
  timeouts: UploadTimeouts,
): AsyncGenerator<T> {
  const chunks = source[Symbol.asyncIterator]();
  const deadline = timeouts.startedAt + timeouts.totalMs;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const left = deadline - performance.now();
    const silence = new Promise<never>((_, reject) => {
      const message =
        left <= timeouts.idleMs
          ? `The upload took longer than ${Math.round(timeouts.totalMs / 1000)} s in all`
          : `The upload stopped: nothing arrived for ${Math.round(timeouts.idleMs / 1000)} s`;
      timer = setTimeout(
        () => reject(new ApiError('request_timeout', { message })),
        Math.max(0, Math.min(timeouts.idleMs, left)),
      );
    });
    const next = await Promise.race([chunks.next(), silence]).finally(() => clearTimeout(timer));
    if (next.done) return;
    yield next.value;
  }
}

/** The longest an upload is read and parsed before the event loop's other work gets a turn, ms. */
const UPLOAD_TURN_MS = 5;

/**
 * Passes `source` through, handing the event loop back once `turnMs` went by since it last did.
 * A chunk is parsed and its rows batched before the next one is asked for, and chunks a fast client
 * already sent are handed on as microtasks, never through the event loop: a 100 MB upload over
 * loopback kept the loop for 50-190 ms at a time, and every other request of the process (health
 * checks, API calls) waited that long. Letting go costs one setImmediate per `turnMs` of work;
 * meanwhile the socket is paused by its own backpressure.
 */
export async function* takingTurns<T>(source: AsyncIterable<T>, turnMs = UPLOAD_TURN_MS): AsyncGenerator<T> {
  let turnStarted = performance.now();
  for await (const chunk of source) {
    yield chunk;
    if (performance.now() - turnStarted >= turnMs) {
      await nextTurn();
      turnStarted = performance.now();
    }
  }
}

/** An upload's bytes as its reader takes them: timed, taking turns with other work, capped. */
export function uploadBytes(
  source: AsyncIterable<Buffer | string>,
  timeouts: UploadTimeouts,
  maxBytes: number,
): AsyncGenerator<Buffer> {
  return limitBytes(takingTurns(withTimeouts(source, timeouts)), maxBytes);
}

/** Passes `source` through, failing once more than `maxBytes` arrived. */
export async function* limitBytes(
  source: AsyncIterable<Buffer | string>,
  maxBytes: number,
): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    if (total > maxBytes) {
      throw new UploadError('payload_too_large', uploadTooLarge(maxBytes));
    }
    yield bytes;
  }
}

/** The message of an upload over `maxBytes`. */
export function uploadTooLarge(maxBytes: number): string {
  return `The upload is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`;
}

/** The form's text fields, and the file's bytes as they arrive. */
export interface MultipartCsv {
  /** The fields sent before the file; those after it are added once its bytes are read. */
  fields: Record<string, string>;
  file: AsyncIterable<Buffer>;
}

/** The file's bytes; any failure while reading them (a form cut short) is the uploader's. */
async function* uploadErrorsOnly(file: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of file) yield chunk;
  } catch (error) {
    if (error instanceof UploadError || error instanceof ApiError) throw error;
    throw new UploadError('bad_request', 'The multipart form ended before the file did', 'file');
  }
}

/** Text fields read from the form (others are ignored). */
const FIELD_NAMES = new Set(['name', 'webhook_url', 'column']);

/** Bounds on the form around the file: a few short fields, one file. */
const FORM_LIMITS = { files: 1, fields: 20, fieldSize: 4096, parts: 40, fieldNameSize: 100 };

/**
 * Reads a multipart form (parsed by @fastify/multipart as it arrives, never buffered whole) up to
 * its field `file`: resolves with the fields that came before it and the file's bytes, with the
 * same silence bound and byte cap as a plain body.
 * @throws UploadError when the form is malformed or has no `file`; ApiError on a silence.
 */
export async function multipartCsv(
  request: FastifyRequest,
  options: { timeouts: UploadTimeouts; maxBytes: number },
): Promise<MultipartCsv> {
  const fields: Record<string, string> = {};
  // One more byte than the cap reaches busboy's own limit, so limitBytes below names the cap.
  const parts = withTimeouts(
    request.parts({ limits: { ...FORM_LIMITS, fileSize: options.maxBytes + 1 } }),
    options.timeouts,
  )[Symbol.asyncIterator]();
  /** The next file part, the fields before it kept; null at the end of the form. */
  const nextFile = async () => {
    try {
      for (let next = await parts.next(); !next.done; next = await parts.next()) {
        const part = next.value;
        if (part.type === 'field') {
          if (FIELD_NAMES.has(part.fieldname) && typeof part.value === 'string')
            fields[part.fieldname] = part.value;
          continue;
        }
        if (part.fieldname === 'file') return part;
        part.file.resume();
      }
      return null;
    } catch (error) {
      if (error instanceof UploadError || error instanceof ApiError) throw error;
      throw new UploadError('bad_request', formProblem(error));
    }
  };
  const file = await nextFile();
  if (file === null)
    throw new UploadError('validation_failed', 'Send the CSV in the multipart field `file`', 'file');
  const bytes = uploadBytes(file.file, options.timeouts, options.maxBytes);
  async function* fileThenLaterFields(): AsyncGenerator<Buffer> {
    yield* uploadErrorsOnly(bytes);
    // Fields after the file (a form that puts `name` last) still count: they are read into
    // `fields` before the list's details are taken, after its rows.
    if ((await nextFile()) !== null)
      throw new UploadError('bad_request', 'The multipart form has more than one file');
  }
  return { fields, file: fileThenLaterFields() };
}

/** What is wrong with a form, from @fastify/multipart's or busboy's error. */
function formProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return 'The multipart form has too many parts: a few text fields and one file, `file`';
  }
  if (error instanceof Error && /boundary/i.test(error.message)) return 'The multipart form has no boundary';
  return 'The multipart form is malformed';
}
