/**
 * Reading an upload's body as a stream: a timeout between chunks, a byte cap, and the CSV file of a
 * multipart form (parsed by busboy as it arrives, never buffered whole).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { UploadError } from '../../../../jobs/upload/upload-error.ts';
import { ApiError } from '../../../errors.ts';

/**
 * Passes `source` through, failing with 408 `request_timeout` when the client sends nothing for
 * `idleMs`. Only the client's silence counts: the clock runs while a chunk is awaited, not while
 * the reader stores the previous ones. After a timeout the source is left as it is: the route
 * answers 408 with `Connection: close`, and the server closes the socket once that is sent.
 */
export async function* idleTimeout<T>(source: AsyncIterable<T>, idleMs: number): AsyncGenerator<T> {
  const chunks = source[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ApiError('request_timeout', {
              message: `The upload stopped: nothing arrived for ${Math.round(idleMs / 1000)} s`,
            }),
          ),
        idleMs,
      );
    });
    const next = await Promise.race([chunks.next(), silence]).finally(() => clearTimeout(timer));
    if (next.done) return;
    yield next.value;
  }
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
      throw new UploadError(
        'bad_request',
        `The upload is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`,
      );
    }
    yield bytes;
  }
}

/** The text fields sent before the file, and the file's bytes as they arrive. */
export interface MultipartCsv {
  fields: Record<string, string>;
  file: AsyncIterable<Buffer>;
}

/** The file's bytes; any failure while reading them (a form cut short) is the uploader's. */
async function* uploadErrorsOnly(file: Readable): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of file) yield chunk as Buffer;
  } catch (error) {
    if (error instanceof UploadError || error instanceof ApiError) throw error;
    throw new UploadError('bad_request', 'The multipart form ended before the file did', 'file');
  }
}

/** Text fields read from the form (others are ignored). */
const FIELD_NAMES = new Set(['name', 'webhook_url', 'column']);

/**
 * Resolves when the multipart field `file` starts, with the fields that came before it.
 * @throws UploadError when the form is malformed or has no `file`.
 */
export function multipartCsv(
  headers: IncomingHttpHeaders,
  body: AsyncIterable<Buffer>,
): Promise<MultipartCsv> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers,
        limits: { files: 1, fields: 20, fieldSize: 4096, parts: 40, fieldNameSize: 100 },
      });
    } catch {
      reject(new UploadError('bad_request', 'The multipart form has no boundary'));
      return;
    }
    const fields: Record<string, string> = {};
    let file: Readable | undefined;
    const fail = (error: unknown): void => {
      const uploadError =
        error instanceof UploadError || error instanceof ApiError
          ? error
          : new UploadError('bad_request', 'The multipart form is malformed');
      if (file === undefined) reject(uploadError);
      else file.destroy(uploadError);
    };
    parser.on('field', (name, value) => {
      if (FIELD_NAMES.has(name) && file === undefined) fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== 'file' || file !== undefined) {
        stream.resume();
        return;
      }
      file = stream;
      resolve({ fields, file: uploadErrorsOnly(stream) });
    });
    parser.on('error', fail);
    parser.on('close', () => {
      if (file === undefined) {
        reject(new UploadError('validation_failed', 'Send the CSV in the multipart field `file`', 'file'));
      }
    });
    (async () => {
      for await (const chunk of body) {
        if (!parser.write(chunk)) await new Promise((resume) => parser.once('drain', resume));
      }
      parser.end();
    })().catch(fail);
  });
}
