/**
 * An SMTP probe session with one MX host: banner, EHLO (HELO fallback), STARTTLS when offered,
 * then transactions of MAIL FROM + RCPT TO... + RSET, each in one round trip when the server
 * pipelines. Never DATA.
 */
import { classifyRcptReply, classifySessionReply } from '../../verification/checks/smtp/classify.ts';
import type { RcptVerdict, SmtpReply } from '../../verification/checks/smtp/reply.ts';
import type { SmtpUnknownReason } from '../../verification/report.ts';
import type { Dialer } from './dialer.ts';
import { SmtpConnection, type SmtpFailure, type SmtpResult } from './smtp-connection.ts';

/** Who the probe says it is. */
export interface ProbeIdentity {
  helo: string;
  from: string;
}

export interface SessionTarget {
  ip: string;
  /** The MX host name, for TLS SNI. */
  hostname: string;
  port: number;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Aborted when nobody waits for this session any more: its socket closes at once. */
  signal?: AbortSignal;
  /** Direct TCP or a SOCKS5 proxy; direct when omitted. */
  dialer?: Dialer;
}

/** A session could not be opened or continued: why, and the reply that said so. */
export interface SessionFailure {
  reason: SmtpUnknownReason;
  reply: SmtpReply | null;
  /** True when the host could not be reached at all: the next MX host is worth a try. */
  unreachable: boolean;
  /** True when the address actively refused the connection (nothing listens on the port). */
  refused?: boolean;
  /** True when the host took the connection but never greeted: its other addresses are not tried. */
  silent?: boolean;
  /** True when the proxy failed us: the host was never reached, and no other address would be. */
  egressFault?: boolean;
  /** The MX host and address the attempt was for (set by the connector that chose them). */
  mxHost?: string;
  mxAddress?: string;
}

/** One RCPT's outcome with the reply that decided it. */
export interface RcptOutcome {
  verdict: RcptVerdict;
  reply: SmtpReply | null;
}

/** One transaction's answer: why its envelope was refused, or each recipient's outcome in order. */
export type TransactionAnswer = { refused: SessionFailure } | { outcomes: RcptOutcome[] };

const FAILURE_REASONS: Record<SmtpFailure, SmtpUnknownReason> = {
  connect_failed: 'connect_failed',
  timeout: 'timeout',
  protocol_error: 'protocol_error',
  tls_failed: 'tls_failed',
  closed: 'protocol_error',
};

/** An open, greeted session. */
export class SmtpSession {
  readonly #connection: SmtpConnection;
  readonly #identity: ProbeIdentity;
  readonly smtpUtf8: boolean;
  readonly pipelining: boolean;
  #inTransaction = false;

  private constructor(connection: SmtpConnection, identity: ProbeIdentity, extensions: Set<string>) {
    this.#connection = connection;
    this.#identity = identity;
    this.smtpUtf8 = extensions.has('SMTPUTF8');
    this.pipelining = extensions.has('PIPELINING');
  }

  /** Whether STARTTLS was used and the certificate verified. */
  get tls(): { used: boolean; authorized: boolean } {
    return this.#connection.tls;
  }

  /** Connects, reads the banner, greets, and upgrades to TLS when offered. */
  static async open(target: SessionTarget, identity: ProbeIdentity): Promise<SmtpSession | SessionFailure> {
    const opened = await SmtpConnection.open(target);
    if (!opened.ok) {
      return {
        reason: FAILURE_REASONS[opened.failure],
        reply: null,
        unreachable: opened.failure !== 'protocol_error',
        refused: opened.failure === 'connect_failed' && opened.detail.includes('ECONNREFUSED'),
        silent: opened.failure === 'timeout' && opened.greeted === false,
        ...(opened.egressFault === true && { egressFault: true }),
      };
    }
    const { connection, banner } = opened.value;
    const bannerVerdict = classifySessionReply('banner', banner);
    if (bannerVerdict.kind === 'unknown') {
      connection.close();
      return { reason: bannerVerdict.reason, reply: banner, unreachable: false };
    }
    let greeting = await greet(connection, identity.helo);
    if ('reason' in greeting) return closeWith(connection, greeting);
    if (greeting.extensions.has('STARTTLS')) {
      const starttls = await connection.command('STARTTLS');
      if (starttls.ok && starttls.value.code === 220) {
        const upgraded = await connection.startTls(target.hostname);
        if (!upgraded.ok)
          return closeWith(connection, { reason: 'tls_failed', reply: null, unreachable: false });
        greeting = await greet(connection, identity.helo);
        if ('reason' in greeting) return closeWith(connection, greeting);
      }
    }
    return new SmtpSession(connection, identity, greeting.extensions);
  }

  /**
   * Asks about `recipients` in one transaction (RSET first when one is open). With PIPELINING the
   * whole transaction is one write and one round trip (RFC 2920 §3.1: RSET, MAIL and RCPT may stand
   * anywhere in a group), its replies matched to the commands by position; otherwise command by
   * command. A refused envelope ends the session's use.
   */
  async transaction(recipients: readonly string[], internationalized: boolean): Promise<TransactionAnswer> {
    const utf8 = internationalized && this.smtpUtf8 ? ' SMTPUTF8' : '';
    const mailFrom = `MAIL FROM:<${this.#identity.from}>${utf8}`;
    const envelope = this.#inTransaction ? ['RSET', mailFrom] : [mailFrom];
    const rcpts = recipients.map((recipient) => `RCPT TO:<${recipient}>`);
    if (this.pipelining) {
      const replies = await this.#connection.pipeline([...envelope, ...rcpts]);
      for (const [i, line] of envelope.entries()) {
        const refused = this.#envelopeRefusal(line, replies[i]!);
        if (refused !== null) return { refused };
      }
      return { outcomes: replies.slice(envelope.length).map(outcomeOf) };
    }
    for (const line of envelope) {
      const refused = this.#envelopeRefusal(line, await this.#connection.command(line));
      if (refused !== null) return { refused };
    }
    const outcomes: RcptOutcome[] = [];
    for (const line of rcpts) outcomes.push(outcomeOf(await this.#connection.command(line)));
    return { outcomes };
  }

  /** Why the reply to RSET or MAIL FROM refuses the transaction; null when it goes on. */
  #envelopeRefusal(line: string, reply: SmtpResult<SmtpReply>): SessionFailure | null {
    if (line === 'RSET') {
      if (!reply.ok || reply.value.code !== 250) return failure(reply);
      this.#inTransaction = false;
      return null;
    }
    if (!reply.ok) return failure(reply);
    const verdict = classifySessionReply('mail_from', reply.value);
    if (verdict.kind === 'unknown') return { reason: verdict.reason, reply: reply.value, unreachable: false };
    this.#inTransaction = true;
    return null;
  }

  /** Ends politely. */
  async quit(): Promise<void> {
    await this.#connection.quit();
  }

  /** Ends at once (after a failure). */
  close(): void {
    this.#connection.close();
  }
}

async function greet(
  connection: SmtpConnection,
  helo: string,
): Promise<{ extensions: Set<string> } | SessionFailure> {
  const ehlo = await connection.command(`EHLO ${helo}`);
  if (!ehlo.ok) return failure(ehlo);
  if (ehlo.value.code === 250) return { extensions: extensionsOf(ehlo.value) };
  // RFC 5321 §4.1.1.1: a server that does not know EHLO may still take HELO.
  const heloReply = await connection.command(`HELO ${helo}`);
  if (!heloReply.ok) return failure(heloReply);
  const verdict = classifySessionReply('helo', heloReply.value);
  if (verdict.kind === 'unknown')
    return { reason: verdict.reason, reply: heloReply.value, unreachable: false };
  return { extensions: new Set() };
}

function outcomeOf(reply: SmtpResult<SmtpReply>): RcptOutcome {
  // No reply at all (the connection broke or timed out): unknown, with the reason.
  if (!reply.ok) return { verdict: { kind: 'unknown', reason: FAILURE_REASONS[reply.failure] }, reply: null };
  return { verdict: classifyRcptReply(reply.value), reply: reply.value };
}

function extensionsOf(reply: SmtpReply): Set<string> {
  // The first line is the greeting; each further line names an extension and its parameters.
  const lines = reply.text.split('\n').slice(1);
  return new Set(lines.map((line) => (line.trim().split(/\s+/)[0] ?? '').toUpperCase()));
}

function failure(result: SmtpResult<SmtpReply>): SessionFailure {
  if (result.ok) return { reason: 'protocol_error', reply: result.value, unreachable: false };
  return { reason: FAILURE_REASONS[result.failure], reply: null, unreachable: false };
}

function closeWith(connection: SmtpConnection, failed: SessionFailure): SessionFailure {
  connection.close();
  return failed;
}
