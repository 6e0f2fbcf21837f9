/**
 * The Mailer port on the operator's SMTP relay (MAILVET_MAIL_URL), with nodemailer. STARTTLS is
 * required on smtp:// (a relay that does not offer it, or whose certificate does not check out, is
 * refused before AUTH), smtps:// is TLS from the first byte, and plain text (?tls=none) is only
 * accepted for a relay on this machine (config.ts). Certificates are checked against the system's
 * roots (NODE_EXTRA_CA_CERTS adds a private CA).
 *
 * The SSRF guard that keeps probes and webhooks off private addresses does not apply here: the
 * relay is the operator's own configuration, not an address a user gave, and is often on loopback
 * or the local network on purpose.
 *
 * nodemailer is loaded on the first message, so a server that sends none never pays for it. The
 * relay's user and password never appear in what this throws: errors are rebuilt from the
 * failure's code and the relay's reply, with the password masked should the reply echo it.
 */
import type { Mailer, MailMessage } from '../../accounts/ports.ts';
import type { MailRelay } from '../../config.ts';

export interface SmtpMailerOptions {
  /** Extra trusted certificates (PEM): a relay with a private CA. */
  ca?: string | Buffer;
  /** Connect, greeting and per-command timeouts, ms (default 10 s, 10 s, 20 s). */
  timeoutsMs?: { connect?: number; greeting?: number; socket?: number };
}

type Transport = { sendMail(message: object): Promise<unknown>; close(): void };

export class SmtpMailer implements Mailer {
  readonly #relay: MailRelay;
  readonly #from: string;
  readonly #options: SmtpMailerOptions;
  #transport: Promise<Transport> | undefined;

  constructor(relay: MailRelay, from: string, options: SmtpMailerOptions = {}) {
    this.#relay = relay;
    this.#from = from;
    this.#options = options;
  }

  async send(message: MailMessage): Promise<void> {
    this.#transport ??= this.#connect();
    const transport = await this.#transport;
    try {
      await transport.sendMail({
        from: this.#from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html !== undefined && { html: message.html }),
      });
    } catch (error) {
      throw this.#failure(error);
    }
  }

  /** Closes the transport's idle connection, if any. */
  close(): void {
    void this.#transport?.then((transport) => transport.close()).catch(() => {});
  }

  async #connect(): Promise<Transport> {
    const { createTransport } = await import('nodemailer');
    const relay = this.#relay;
    const timeouts = this.#options.timeoutsMs ?? {};
    return createTransport({
      host: relay.host,
      port: relay.port,
      secure: relay.tls === 'implicit',
      requireTLS: relay.tls === 'starttls',
      ignoreTLS: relay.tls === 'none',
      ...(relay.user !== undefined && { auth: { user: relay.user, pass: relay.password ?? '' } }),
      tls: {
        minVersion: 'TLSv1.2',
        rejectUnauthorized: true,
        ...(this.#options.ca !== undefined && { ca: this.#options.ca }),
      },
      connectionTimeout: timeouts.connect ?? 10_000,
      greetingTimeout: timeouts.greeting ?? 10_000,
      socketTimeout: timeouts.socket ?? 20_000,
      // Messages are text made here: never let one read a file or fetch a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
      debug: false,
    });
  }

  /** The failure, named by its code and the relay's reply, without the relay's credentials. */
  #failure(error: unknown): Error {
    const { code, responseCode, message } = (error ?? {}) as {
      code?: unknown;
      responseCode?: unknown;
      message?: unknown;
    };
    const what = [
      typeof code === 'string' ? code : undefined,
      typeof responseCode === 'number' ? responseCode : undefined,
    ]
      .filter((part) => part !== undefined)
      .join(' ');
    const detail = typeof message === 'string' ? this.#masked(message).slice(0, 300) : 'unknown error';
    const failure = new Error(
      `the mail relay ${this.#relay.host}:${this.#relay.port} did not take the message${what === '' ? '' : ` (${what})`}: ${detail}`,
    );
    failure.name = 'MailRelayError';
    return failure;
  }

  #masked(text: string): string {
    const secret = this.#relay.password;
    if (secret === undefined || secret === '') return text;
    let masked = text;
    for (const form of [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')])
      masked = masked.split(form).join('***');
    return masked;
  }
}
