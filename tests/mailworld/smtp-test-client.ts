/**
 * A tiny SMTP client for testing the mail world itself (not the prober): send a line, read one
 * (possibly multi-line) reply, upgrade to TLS, notice silence or a dropped connection.
 */
import net, { type Socket } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';

/** One reply: its code, the text of each line, and the raw lines. */
export interface Reply {
  code: number;
  /** The text after `NNN ` of the last line. */
  text: string;
  lines: string[];
}

/** What the reader saw instead of a reply. */
export class ConnectionClosed extends Error {}

/** A line-oriented test client over one connection. */
export class SmtpTestClient {
  private socket: Socket | TLSSocket;
  private received = '';
  private ended = false;
  private wake: (() => void) | null = null;
  private readonly closedPromise: Promise<void>;
  private resolveClosed: () => void = () => {};

  private constructor(socket: Socket) {
    this.socket = socket;
    this.closedPromise = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.attach(socket);
  }

  /** Connects to `host:port`; rejects with the connect error (ECONNREFUSED...). */
  static connect(host: string, port: number): Promise<SmtpTestClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new SmtpTestClient(socket));
      });
    });
  }

  private attach(socket: Socket | TLSSocket): void {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.received += chunk;
      this.wake?.();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.ended = true;
      this.wake?.();
      this.resolveClosed();
    });
  }

  /** Bytes received and not yet read as a reply. */
  get unread(): string {
    return this.received;
  }

  /** Reads the next complete reply; rejects on timeout or when the server closes first. */
  async readReply(timeoutMs = 3000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = this.takeReply();
      if (reply) return reply;
      if (this.ended)
        throw new ConnectionClosed(`closed before a reply; unread: ${JSON.stringify(this.received)}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no reply within ${timeoutMs} ms; unread: ${JSON.stringify(this.received)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private takeReply(): Reply | null {
    const lines: string[] = [];
    let offset = 0;
    for (let end = this.received.indexOf('\r\n'); end !== -1; end = this.received.indexOf('\r\n', offset)) {
      const line = this.received.slice(offset, end);
      offset = end + 2;
      lines.push(line);
      if (line[3] !== '-') {
        this.received = this.received.slice(offset);
        return { code: Number(line.slice(0, 3)), text: line.slice(4), lines };
      }
    }
    return null;
  }

  /** Writes one command line (CRLF added). */
  send(line: string): void {
    this.socket.write(`${line}\r\n`);
  }

  /** Sends a command and reads its reply. */
  command(line: string, timeoutMs?: number): Promise<Reply> {
    this.send(line);
    return this.readReply(timeoutMs);
  }

  /** Starts TLS over the connection (after the server's 220 to STARTTLS); trusts any certificate. */
  async startTls(servername?: string): Promise<TLSSocket> {
    const plain = this.socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    const secure = tls.connect({
      socket: plain,
      rejectUnauthorized: false,
      ...(servername ? { servername } : {}),
    });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', () => resolve());
      secure.once('error', reject);
    });
    this.socket = secure;
    this.attach(secure);
    return secure;
  }

  /** True when nothing at all arrives for `ms` milliseconds. */
  async silentFor(ms: number): Promise<boolean> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return this.received === '' && !this.ended;
  }

  /** Resolves once the server has closed the connection (rejects after `timeoutMs`). */
  closed(timeoutMs = 3000): Promise<void> {
    return Promise.race([
      this.closedPromise,
      new Promise<void>((_, reject) =>
        setTimeout(() => reject(new Error(`still open after ${timeoutMs} ms`)), timeoutMs).unref(),
      ),
    ]);
  }

  /** Whether the server closed the connection. */
  get isClosed(): boolean {
    return this.ended;
  }

  /** Drops the connection. */
  destroy(): void {
    this.socket.destroy();
  }
}
