/**
 * A minimal SMTP client connection for probing: one socket, replies read line by line with bounds
 * on time and size, STARTTLS upgrade. It never sends DATA: the probe has no message to send.
 * Failures are values (`SmtpFailure`), never exceptions, so one bad server cannot crash a probe.
 */
import net from 'node:net';
import tls from 'node:tls';
import { parseReplyLines } from '../../verification/checks/smtp/classify.ts';
import type { SmtpReply } from '../../verification/checks/smtp/reply.ts';
import type { Dialer } from './dialer.ts';
import { DIRECT_DIALER } from './direct-dialer.ts';

/** Why talking to the server stopped. */
export type SmtpFailure = 'connect_failed' | 'timeout' | 'protocol_error' | 'tls_failed' | 'closed';

export type SmtpResult<T> =
  | { ok: true; value: T }
  // `greeted: false`: the connection was made but no banner came (a tarpit, or a server that is too busy).
  // `egressFault`: the proxy failed us, which says nothing about the MX (see dialer.ts).
  | { ok: false; failure: SmtpFailure; detail: string; greeted?: false; egressFault?: true };

export interface ConnectOptions {
  ip: string;
  port: number;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Closes the socket at once when aborted: nobody waits for what it would tell. */
  signal?: AbortSignal;
  /** How the TCP stream is opened (direct or through a proxy); direct when omitted. */
  dialer?: Dialer;
}

// Bounds against hostile servers: RFC 5321 §4.5.3.1.5 allows 512-octet reply lines; we are lenient.
const MAX_LINE_OCTETS = 4096;
const MAX_REPLY_LINES = 200;

/** One SMTP connection; commands are sent one at a time, or pipelined where the server allows. */
export class SmtpConnection {
  #socket: net.Socket | tls.TLSSocket;
  #buffer = '';
  #lines: string[] = [];
  #waiter: (() => void) | null = null;
  #closed: string | null = null;
  readonly #commandTimeoutMs: number;
  #signal: AbortSignal | undefined;
  readonly #onAbort = (): void => this.close();
  /** Whether STARTTLS was used, and whether the certificate verified (recorded, never required). */
  tls: { used: boolean; authorized: boolean } = { used: false, authorized: false };

  private constructor(socket: net.Socket, commandTimeoutMs: number, signal: AbortSignal | undefined) {
    this.#socket = socket;
    this.#commandTimeoutMs = commandTimeoutMs;
    this.#attach(socket);
    this.#signal = signal;
    signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Connects (through the dialer, direct by default) and reads the banner. */
  static async open(
    options: ConnectOptions,
  ): Promise<SmtpResult<{ connection: SmtpConnection; banner: SmtpReply }>> {
    const { signal } = options;
    const dialed = await (options.dialer ?? DIRECT_DIALER).dial({
      ip: options.ip,
      port: options.port,
      timeoutMs: options.connectTimeoutMs,
      signal,
    });
    if (!dialed.ok) {
      const { failure, detail, egressFault } = dialed;
      return { ok: false, failure, detail, ...(egressFault === true && { egressFault }) };
    }
    if (signal?.aborted) {
      dialed.socket.destroy();
      return { ok: false, failure: 'timeout', detail: 'cancelled' };
    }
    // From here the connection itself closes on abort, which ends the banner wait below.
    const connection = new SmtpConnection(dialed.socket, options.commandTimeoutMs, signal);
    const banner = await connection.readReply();
    if (!banner.ok) {
      connection.close();
      return { ...banner, greeted: false };
    }
    return { ok: true, value: { connection, banner: banner.value } };
  }

  /** Sends one command line and reads its reply. */
  async command(line: string): Promise<SmtpResult<SmtpReply>> {
    if (this.#closed !== null) return { ok: false, failure: 'closed', detail: this.#closed };
    // A CR or LF inside a command would let an address smuggle a second command.
    if (/[\r\n]/.test(line))
      return { ok: false, failure: 'protocol_error', detail: 'line break in a command' };
    this.#socket.write(`${line}\r\n`);
    return this.readReply();
  }

  /**
   * Sends several commands at once and reads their replies in order (RFC 2920 PIPELINING; only
   * when the server advertised it). A failure ends the list early.
   */
  async pipeline(lines: readonly string[]): Promise<Array<SmtpResult<SmtpReply>>> {
    if (this.#closed !== null)
      return lines.map(() => ({ ok: false, failure: 'closed', detail: this.#closed ?? '' }));
    if (lines.some((line) => /[\r\n]/.test(line))) {
      return lines.map(() => ({ ok: false, failure: 'protocol_error', detail: 'line break in a command' }));
    }
    this.#socket.write(lines.map((line) => `${line}\r\n`).join(''));
    const replies: Array<SmtpResult<SmtpReply>> = [];
    for (let i = 0; i < lines.length; i++) {
      const reply = await this.readReply();
      replies.push(reply);
      if (!reply.ok) {
        while (replies.length < lines.length) replies.push(reply);
        break;
      }
    }
    return replies;
  }

  /** Upgrades to TLS after a 220 reply to STARTTLS; the certificate is recorded, not required. */
  async startTls(servername: string | undefined): Promise<SmtpResult<void>> {
    const plain = this.#socket as net.Socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    plain.removeAllListeners('error');
    this.#buffer = '';
    this.#lines = [];
    return new Promise((resolve) => {
      const secure = tls.connect({
        socket: plain,
        servername: servername !== undefined && net.isIP(servername) === 0 ? servername : undefined,
        rejectUnauthorized: false,
      });
      const timer = setTimeout(() => {
        secure.destroy();
        resolve({ ok: false, failure: 'tls_failed', detail: 'TLS handshake timed out' });
      }, this.#commandTimeoutMs);
      secure.once('error', (error) => {
        clearTimeout(timer);
        this.#closed = error.message;
        resolve({ ok: false, failure: 'tls_failed', detail: error.message });
      });
      secure.once('secureConnect', () => {
        clearTimeout(timer);
        secure.removeAllListeners('error');
        this.#socket = secure;
        this.#attach(secure);
        this.tls = { used: true, authorized: secure.authorized };
        resolve({ ok: true, value: undefined });
      });
    });
  }

  /** Sends QUIT without waiting long for the answer, then closes. */
  async quit(): Promise<void> {
    if (this.#closed === null) {
      this.#socket.write('QUIT\r\n');
      await Promise.race([this.readReply(), new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    this.close();
  }

  /** Closes the socket at once. */
  close(): void {
    this.#closed ??= 'closed by us';
    this.#socket.destroy();
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#signal = undefined;
    this.#wake();
  }

  /** Reads one complete (possibly multi-line) reply. */
  async readReply(): Promise<SmtpResult<SmtpReply>> {
    const lines: string[] = [];
    const deadline = Date.now() + this.#commandTimeoutMs;
    for (;;) {
      const line = await this.#nextLine(deadline);
      if (!line.ok) return line;
      lines.push(line.value);
      if (lines.length > MAX_REPLY_LINES)
        return { ok: false, failure: 'protocol_error', detail: 'reply too long' };
      // "250-" continues a reply; "250 " or a bare "250" ends it (RFC 5321 §4.2.1).
      if (!/^\d{3}-/.test(line.value)) return { ok: true, value: parseReplyLines(lines) };
    }
  }

  #attach(socket: net.Socket | tls.TLSSocket): void {
    socket.setEncoding('latin1');
    // A SOCKS client hands on what it read past its reply as a Buffer, bypassing the decoder.
    socket.on('data', (chunk: string | Buffer) => {
      this.#buffer += typeof chunk === 'string' ? chunk : chunk.toString('latin1');
      let end = this.#buffer.indexOf('\n');
      while (end >= 0) {
        this.#lines.push(this.#buffer.slice(0, end).replace(/\r$/, ''));
        this.#buffer = this.#buffer.slice(end + 1);
        end = this.#buffer.indexOf('\n');
      }
      if (this.#buffer.length > MAX_LINE_OCTETS) {
        this.#closed = 'reply line too long';
        socket.destroy();
      }
      this.#wake();
    });
    socket.on('error', (error) => {
      this.#closed ??= error.message;
      this.#wake();
    });
    socket.on('close', () => {
      this.#closed ??= 'connection closed by the server';
      this.#wake();
    });
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.();
  }

  async #nextLine(deadline: number): Promise<SmtpResult<string>> {
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) return { ok: true, value: line };
      if (this.#closed !== null) {
        const failure: SmtpFailure = this.#closed === 'reply line too long' ? 'protocol_error' : 'closed';
        return { ok: false, failure, detail: this.#closed };
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return { ok: false, failure: 'timeout', detail: 'no reply in time' };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
