/**
 * A mail relay on loopback for the account-mail tests: a real SMTP server (the `smtp-server`
 * package) that takes every message and keeps it, so a test reads what the service sent as a
 * person's inbox would hold it. Plain text (`?tls=none`) by default; with `starttls` it offers
 * STARTTLS with the mail world's throwaway certificate (tests/fixtures/tls, valid for 127.0.0.1)
 * and refuses AUTH and mail before it; with `auth` it asks for that user and password.
 */
import { readFileSync } from 'node:fs';
import { SMTPServer } from 'smtp-server';

/** A message as the sink received it. */
export interface SunkMessage {
  /** Envelope sender and recipients. */
  from: string;
  to: string[];
  /** Header fields, lower-cased names (the first of each). */
  headers: Record<string, string>;
  subject: string;
  /** The text body, decoded from quoted-printable when it was. */
  text: string;
  /** Whether the session was under TLS when the message came. */
  secure: boolean;
}

export interface MailSinkOptions {
  starttls?: boolean;
  auth?: { user: string; password: string };
  /** Holds each message's acceptance until `release()` (a relay that is slow to answer). */
  held?: boolean;
}

export interface MailSink {
  host: string;
  port: number;
  /** MAILVET_MAIL_URL for this sink (with the credentials when it asks for them). */
  url: string;
  messages: SunkMessage[];
  /** The first message (from now on, or already here) that `matches`; waits for it. */
  next(matches?: (message: SunkMessage) => boolean): Promise<SunkMessage>;
  /** Messages whose DATA has arrived and waits for `release()` (with `held`). */
  heldCount(): number;
  /** Accepts the messages held so far, and every later one. */
  release(): void;
  close(): Promise<void>;
}

const TLS_DIR = new URL('../fixtures/tls/', import.meta.url);

/** Starts a sink on 127.0.0.1 at a free port. */
export async function startMailSink(options: MailSinkOptions = {}): Promise<MailSink> {
  const messages: SunkMessage[] = [];
  const waiters: Array<{ matches: (message: SunkMessage) => boolean; resolve: (m: SunkMessage) => void }> =
    [];
  let held = options.held === true;
  const holding: Array<() => void> = [];
  const server = new SMTPServer({
    name: 'relay.mailworld.test',
    banner: 'mail sink',
    disableReverseLookup: true,
    closeTimeout: 20,
    logger: false,
    ...(options.starttls
      ? {
          key: readFileSync(new URL('mailworld-key.pem', TLS_DIR)),
          cert: readFileSync(new URL('mailworld-cert.pem', TLS_DIR)),
          // AUTH and mail only under TLS: a client that skipped STARTTLS is refused.
          allowInsecureAuth: false,
        }
      : { disabledCommands: ['STARTTLS'], allowInsecureAuth: true }),
    authOptional: options.auth === undefined,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      const wanted = options.auth;
      if (wanted !== undefined && auth.username === wanted.user && auth.password === wanted.password)
        return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Authentication failed'), { responseCode: 535 }));
    },
    onMailFrom(_address, session, callback) {
      if (options.starttls && !session.secure)
        return callback(
          Object.assign(new Error('Must issue a STARTTLS command first'), { responseCode: 530 }),
        );
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const message = parse(Buffer.concat(chunks).toString('utf8'), session);
        const accept = () => {
          messages.push(message);
          for (const waiter of waiters.splice(0)) {
            if (waiter.matches(message)) waiter.resolve(message);
            else waiters.push(waiter);
          }
          callback();
        };
        if (held) holding.push(accept);
        else accept();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.on('error', () => {});
  const port = (server.server.address() as { port: number }).port;
  const credentials =
    options.auth === undefined
      ? ''
      : `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.password)}@`;
  return {
    host: '127.0.0.1',
    port,
    url: `smtp://${credentials}127.0.0.1:${port}${options.starttls ? '' : '?tls=none'}`,
    messages,
    next(matches = () => true) {
      const found = messages.find(matches);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ matches, resolve }));
    },
    heldCount: () => holding.length,
    release() {
      held = false;
      for (const accept of holding.splice(0)) accept();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in the message whose path is `path` (such as `/confirm`). */
export function linkIn(message: SunkMessage, path: string): URL {
  for (const match of message.text.matchAll(/https?:\/\/\S+/g)) {
    const url = new URL(match[0]);
    if (url.pathname === path) return url;
  }
  throw new Error(`no ${path} link in: ${message.text}`);
}

function parse(
  raw: string,
  session: { envelope: { mailFrom: unknown; rcptTo: Array<{ address: string }> }; secure: boolean },
): SunkMessage {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= line.slice(colon + 1).trim();
  }
  const quoted = /quoted-printable/i.test(headers['content-transfer-encoding'] ?? '');
  const mailFrom = session.envelope.mailFrom as { address?: string } | false;
  return {
    from: mailFrom === false ? '' : (mailFrom.address ?? ''),
    to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
    headers,
    subject: headers.subject ?? '',
    text: (quoted ? decodeQuotedPrintable(body) : body).replace(/\r\n/g, '\n'),
    secure: session.secure,
  };
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}
