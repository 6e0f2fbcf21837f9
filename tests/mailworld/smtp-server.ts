/**
 * One SMTP host of the mail world, scripted with one behaviour. Behaviours a real SMTP server can
 * express run on the `smtp-server` package (its EHLO, pipelining, STARTTLS and state machine are
 * an implementation independent of our prober's); the rest run on the raw responder.
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import type { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import {
  BEHAVIOUR_DEFAULTS,
  type BehaviourName,
  createMailPolicy,
  type MailPolicy,
  plainIp,
  REPLIES,
  type SmtpBehaviour,
} from './behaviours.ts';
import {
  countCommand,
  emptyStats,
  recordReply,
  resetStats,
  type SmtpHostStats,
  type TranscriptWriter,
  transcriptWriter,
} from './host-stats.ts';
import { PROVIDER_BEHAVIOURS } from './provider-replies.ts';
import { type Listener, listen, startRawSmtpHost } from './raw-smtp.ts';

/** Where and how a host runs. */
export type SmtpHostOptions = SmtpBehaviour & {
  /** A loopback address, e.g. `127.0.0.2`. */
  host: string;
  /** 0 (default) picks a random free port. */
  port?: number;
  /** The STARTTLS host's key and certificate (PEM), instead of the fixture's self-signed one. */
  tls?: { key: string | Buffer; cert: string | Buffer };
};

/** A running host. */
export interface SmtpHost {
  behaviour: BehaviourName;
  host: string;
  port: number;
  /** Live counters: read them after the client is done. */
  stats: SmtpHostStats;
  /** Zeroes the counters and forgets greylist sightings. */
  reset(): void;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

const RAW_BEHAVIOURS = new Set<BehaviourName>([
  'tarpit',
  'drop-after-rcpt',
  'drop-at-rcpt',
  'reply-delay',
  'helo-only',
  // Provider replies run to several lines and banners of their own, which smtp-server's
  // callbacks cannot send (it sends an error's message as one line).
  ...PROVIDER_BEHAVIOURS,
]);

// A throwaway self-signed certificate for mx.tls.test (see tests/fixtures/tls/README.md).
const TLS_DIR = new URL('../fixtures/tls/', import.meta.url);
let tlsMaterial: { key: Buffer; cert: Buffer } | undefined;
function loadTlsMaterial() {
  tlsMaterial ??= {
    key: readFileSync(new URL('mailworld-key.pem', TLS_DIR)),
    cert: readFileSync(new URL('mailworld-cert.pem', TLS_DIR)),
  };
  return tlsMaterial;
}

/** Starts an SMTP host with one scripted behaviour. */
export async function startSmtpHost(options: SmtpHostOptions): Promise<SmtpHost> {
  const { host, port = 0, tls, ...behaviour } = options;
  const stats = emptyStats();
  const policy = createMailPolicy(behaviour);
  const listener = RAW_BEHAVIOURS.has(behaviour.behaviour)
    ? await startRawSmtpHost(behaviour, host, port, stats, policy)
    : await startPackagedHost(behaviour, host, port, stats, policy, tls);
  return {
    behaviour: behaviour.behaviour,
    host,
    port: listener.port,
    stats,
    reset: () => {
      resetStats(stats);
      policy.forget();
    },
    close: () => listener.close(),
  };
}

/** An error whose message and code smtp-server sends as the reply. */
function replyError(reply: { code: number; text: string }): Error & { responseCode: number } {
  return Object.assign(new Error(reply.text), { responseCode: reply.code });
}

/**
 * smtp-server answers DATA with 354 once a recipient is accepted; a probe-only world refuses it
 * outright, so each connection's DATA handler is replaced as the connection is made.
 */
class ProbeOnlySmtpServer extends SMTPServer {
  override connect(...args: Parameters<SMTPServer['connect']>): void {
    super.connect(...args);
    let newest: SMTPConnection | undefined;
    for (const connection of this.connections) newest = connection;
    if (!newest) return;
    newest.handler_DATA = function refuseData(_command, callback) {
      this.send(REPLIES.dataRefused.code, REPLIES.dataRefused.text);
      callback();
    };
  }
}

async function startPackagedHost(
  behaviour: SmtpBehaviour,
  host: string,
  port: number,
  stats: SmtpHostStats,
  policy: MailPolicy,
  tls?: SmtpHostOptions['tls'],
): Promise<Listener> {
  const kind = behaviour.behaviour;
  // Keyed by smtp-server's connection id (the `cid` of its log lines, `session.id` in handlers).
  const writers = new Map<string, TranscriptWriter>();
  const transcriptOf = (session: SMTPServerSession | string) => {
    const id = typeof session === 'string' ? session : session.id;
    let writer = writers.get(id);
    if (!writer) {
      writer = transcriptWriter(stats);
      writers.set(id, writer);
    }
    return writer;
  };
  const options: SMTPServerOptions = {
    name: behaviour.name ?? 'mx.mailworld.test',
    banner: 'mail world',
    disabledCommands: kind === 'starttls' ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(kind === 'starttls' ? (tls ?? loadTlsMaterial()) : {}),
    disableReverseLookup: true,
    // close() drops what is left itself; smtp-server would wait 30 s for clients to leave.
    closeTimeout: 20,
    logger: transcriptLogger(transcriptOf, stats),
    onConnect(session, callback) {
      if (kind === 'blocklist-banner')
        return callback(replyError(REPLIES.blocked(plainIp(session.remoteAddress))));
      if (kind === 'slow-banner') {
        setTimeout(callback, behaviour.bannerDelayMs ?? BEHAVIOUR_DEFAULTS.bannerDelayMs);
        return;
      }
      callback();
    },
    onSecure(socket, session, callback) {
      stats.starttls++;
      const protocol = 'getProtocol' in socket ? socket.getProtocol() : null;
      transcriptOf(session)(`* TLS established (${protocol ?? 'unknown protocol'})`);
      callback();
    },
    onClose(session) {
      writers.delete(session.id);
    },
    onMailFrom(address, _session, callback) {
      const rejection = policy.mailFrom(address.address);
      callback(rejection ? replyError(rejection) : null);
    },
    onRcptTo(address, session, callback) {
      const decision = policy.rcptTo({
        clientIp: plainIp(session.remoteAddress),
        sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        recipient: address.address,
        accepted: session.envelope.rcptTo.length,
      });
      callback(decision.code < 300 ? null : replyError(decision));
    },
  };
  const server = new ProbeOnlySmtpServer(options);
  const sockets = new Set<Socket>();
  // Counted at accept: smtp-server holds its banner back 100 ms to catch early talkers, and a
  // client that gives up sooner has still connected.
  server.server.on('connection', (socket: Socket) => {
    stats.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const boundPort = await listen(server.server, port, host);
  // Clients that reset the connection are part of the game, not errors of the world.
  server.on('error', () => {});
  return {
    port: boundPort,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.server.once('close', () => resolve()));
      // smtp-server says 421 to each client and ends it; whoever is still there 20 ms later is cut.
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

type TranscriptOf = (sessionId: string) => TranscriptWriter;

/** A bunyan-shaped logger that turns smtp-server's `C:`/`S:` debug lines into transcripts and counts. */
function transcriptLogger(transcriptOf: TranscriptOf, stats: SmtpHostStats): SMTPServerOptions['logger'] {
  const ignore = () => {};
  const debug = (entry: { cid?: string } | undefined, message: unknown, ...args: unknown[]) => {
    const id = entry?.cid;
    const line = args[0];
    if (!id || typeof line !== 'string') return;
    if (message === 'C:') {
      transcriptOf(id)(`C: ${line}`);
      countCommand(stats, line);
    } else if (message === 'S:') {
      recordReply(transcriptOf(id), line);
    }
  };
  return { level: ignore, trace: ignore, debug, info: ignore, warn: ignore, error: ignore, fatal: ignore };
}
