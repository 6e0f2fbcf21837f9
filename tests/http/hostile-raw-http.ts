/**
 * A bare HTTP/1.1 client on a raw TCP socket, for what `fetch` refuses to send: invalid UTF-8
 * bodies, lying Content-Length, chunked bodies of any size, requests that stall half-way.
 */
import { connect } from 'node:net';
import type { SeenResponse } from './hostile-checks.ts';

/** What came back on one connection. */
export interface RawExchange {
  /** The first response, when one was complete. */
  response: SeenResponse | undefined;
  /** The server closed (or reset) the connection. */
  closed: boolean;
  /** Our deadline passed with the connection still open and no complete response. */
  timedOut: boolean;
  elapsedMs: number;
}

export interface RawRequestOptions {
  /** Give up (and count it as a hang) after this long. */
  deadlineMs: number;
  /** Pieces written one after another with `pauseMs` between them; a pause of Infinity stalls. */
  pauseMs?: number;
  /** The request is a HEAD: the response has headers only, whatever its Content-Length says. */
  head?: boolean;
}

/** Builds request bytes: request line, headers (with Connection: close), blank line, body. */
export function requestBytes(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: Buffer,
): Buffer {
  const lines = [`${method} ${url} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body === undefined ? head : Buffer.concat([head, body]);
}

/** Sends `pieces` on a fresh connection and reads the first response (or notes the close or hang). */
export function rawExchange(
  port: number,
  pieces: Buffer[],
  options: RawRequestOptions,
): Promise<RawExchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve({
        response: parseResponse(Buffer.concat(received), options.head),
        closed,
        timedOut,
        elapsedMs: performance.now() - started,
      });
    };
    const deadline = setTimeout(() => finish(false, true), options.deadlineMs);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      // A complete response is enough: the server may keep reading what we still send.
      if (parseResponse(Buffer.concat(received), options.head) !== undefined) finish(false, false);
    });
    // A server that answers early and closes resets our unfinished upload: not a failure.
    socket.on('error', () => finish(true, false));
    socket.on('close', () => finish(true, false));
    socket.on('connect', async () => {
      for (const [i, piece] of pieces.entries()) {
        if (settled || socket.destroyed) return;
        if (i > 0 && options.pauseMs !== undefined) {
          if (options.pauseMs === Number.POSITIVE_INFINITY) return;
          await new Promise((wait) => setTimeout(wait, options.pauseMs));
        }
        if (!socket.write(piece)) await new Promise((drained) => socket.once('drain', drained));
      }
    });
  });
}

/** Parses one HTTP/1.1 response (Content-Length or chunked); undefined while incomplete. */
export function parseResponse(bytes: Buffer, head = false): SeenResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] =
      headers[name] === undefined
        ? line.slice(colon + 1).trim()
        : `${headers[name]}, ${line.slice(colon + 1).trim()}`;
  }
  const rest = bytes.subarray(end + 4);
  if (head) return { status, headers, body: '' };
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    const body = dechunk(rest);
    return body === undefined ? undefined : { status, headers, body: body.toString('utf8') };
  }
  const length = Number(headers['content-length'] ?? 0);
  if (rest.length < length) return undefined;
  return { status, headers, body: rest.subarray(0, length).toString('utf8') };
}

function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    if (bytes.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
