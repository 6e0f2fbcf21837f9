/**
 * The host check's port-25 dialer over `node:net`: connect, read the banner, EHLO, QUIT. Its own
 * small socket (not the probe's connection) because it needs the socket's local address, and it
 * never goes further than EHLO. Every step is bounded; failures are values.
 */
import net from 'node:net';
import type { DialFailure, DialOutcome, DialReply, DialRequest, Port25Dialer } from '../../doctor/ports.ts';
import { parseReplyLines } from '../../verification/checks/smtp/reply-lines.ts';

// A hostile or broken server must not make the doctor hold a big buffer.
const MAX_BUFFER = 16_384;

/** Dials with a plain TCP socket. */
export class SmtpPort25Dialer implements Port25Dialer {
  /** Connects to `request.ip:port`, reads the banner, says EHLO and leaves. */
  dial(request: DialRequest): Promise<DialOutcome> {
    return new Promise((resolve) => {
      const socket = net.connect({ host: request.ip, port: request.port });
      let settled = false;
      let buffer = '';
      let lines: string[] = [];
      let waiter: ((reply: DialReply | null) => void) | null = null;
      let timer: NodeJS.Timeout | undefined;
      const finish = (outcome: DialOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        socket.destroy();
        resolve(outcome);
      };
      const onAbort = () =>
        finish({ kind: 'failed', failure: 'timeout', detail: 'the doctor ran out of time' });
      request.signal?.addEventListener('abort', onAbort, { once: true });
      if (request.signal?.aborted) return onAbort();
      timer = setTimeout(
        () =>
          finish({
            kind: 'failed',
            failure: 'timeout',
            detail: `no connection within ${request.connectTimeoutMs} ms`,
          }),
        request.connectTimeoutMs,
      );
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        buffer += chunk;
        if (buffer.length > MAX_BUFFER)
          return finish({ kind: 'failed', failure: 'error', detail: 'reply too long' });
        const parts = buffer.split('\n');
        buffer = parts.pop() ?? '';
        for (const part of parts) {
          const line = part.replace(/\r$/, '');
          lines.push(line);
          // "250-" continues a reply; "250 " or a bare "250" ends it (RFC 5321 §4.2.1).
          if (!/^\d{3}-/.test(line)) {
            const reply = parseReplyLines(lines);
            lines = [];
            const wake = waiter;
            waiter = null;
            wake?.({ code: reply.code, text: reply.text });
          }
        }
      });
      socket.on('close', () => {
        const wake = waiter;
        waiter = null;
        wake?.(null);
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        const wake = waiter;
        if (wake !== null) {
          waiter = null;
          wake(null);
          return;
        }
        finish({ kind: 'failed', failure: failureOf(error.code), detail: error.message });
      });
      const nextReply = (): Promise<DialReply | null> =>
        new Promise((resolveReply) => {
          clearTimeout(timer);
          timer = setTimeout(() => {
            waiter = null;
            resolveReply(null);
          }, request.commandTimeoutMs);
          waiter = resolveReply;
        });
      socket.once('connect', async () => {
        const localAddress = socket.localAddress ?? null;
        const banner = await nextReply();
        if (settled) return;
        if (banner === null) {
          return finish({
            kind: 'failed',
            failure: 'no_banner',
            detail: 'connected, but no greeting came in time',
          });
        }
        if (banner.code >= 400) return finish({ kind: 'greeted', banner, ehlo: null, localAddress });
        socket.write(`EHLO ${request.helo}\r\n`);
        const ehlo = await nextReply();
        if (settled) return;
        socket.write('QUIT\r\n');
        finish({ kind: 'greeted', banner, ehlo, localAddress });
      });
    });
  }
}

function failureOf(code: string | undefined): DialFailure {
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'unreachable';
    default:
      return 'error';
  }
}
