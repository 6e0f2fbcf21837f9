/**
 * A small SMTP responder on node:net for the behaviours smtp-server cannot script: a tarpit, a
 * connection dropped at or after RCPT, a delay before every reply, a server that rejects EHLO,
 * and the provider hosts, whose banners and multi-line replies are their own.
 * It answers one command at a time in arrival order, so pipelined commands work. No TLS: the
 * STARTTLS host runs on smtp-server.
 */
import net, { type Server, type Socket } from 'node:net';
import {
  BEHAVIOUR_DEFAULTS,
  bannerText,
  type MailPolicy,
  plainIp,
  REPLIES,
  type SmtpBehaviour,
} from './behaviours.ts';
import { countCommand, recordReply, type SmtpHostStats, transcriptWriter } from './host-stats.ts';

/** A running listener: its port and how to stop it (every open socket is destroyed). */
export interface Listener {
  port: number;
  close(): Promise<void>;
}

// A client that sends this much without a line break is not speaking SMTP.
const MAX_PENDING_INPUT = 64 * 1024;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Listens on `host:port` (0 = random); rejects with the bind error (EADDRINUSE...). */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** Closes `server` after destroying `sockets`; resolves once the port is free. */
export function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const socket of sockets) socket.destroy();
  return closed;
}

/** The address inside `FROM:<...>` / `TO:<...>`, or null when the path is malformed. */
function pathArgument(argument: string, keyword: 'FROM' | 'TO'): string | null {
  const match = new RegExp(`^${keyword}:\\s*<([^<>\\s]*)>`, 'i').exec(argument);
  return match ? (match[1] ?? '') : null;
}

/** Starts a raw responder for `behaviour` on `host:port`. */
export async function startRawSmtpHost(
  behaviour: SmtpBehaviour,
  host: string,
  port: number,
  stats: SmtpHostStats,
  policy: MailPolicy,
): Promise<Listener> {
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    stats.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, behaviour, stats, policy);
  });
  const boundPort = await listen(server, port, host);
  server.on('error', () => {});
  return { port: boundPort, close: () => closeServer(server, sockets) };
}

function serveConnection(socket: Socket, behaviour: SmtpBehaviour, stats: SmtpHostStats, policy: MailPolicy) {
  const transcript = transcriptWriter(stats);
  const name = behaviour.name ?? 'mx.mailworld.test';
  const kind = behaviour.behaviour;
  const replyDelayMs =
    kind === 'reply-delay' ? (behaviour.replyDelayMs ?? BEHAVIOUR_DEFAULTS.replyDelayMs) : 0;
  const clientIp = plainIp(socket.remoteAddress);
  let greeted = false;
  let sender: string | null = null;
  let accepted = 0;

  // The delay runs from when the command arrived, like network latency: pipelined commands are
  // answered about one delay after they were sent, not one delay each in turn.
  let replyDueAt = Date.now() + replyDelayMs;
  const reply = async (code: number, lines: string | readonly string[]) => {
    const wait = replyDueAt - Date.now();
    if (replyDelayMs > 0 && wait > 0) await sleep(wait);
    if (socket.destroyed || !socket.writable) return;
    const all = typeof lines === 'string' ? [lines] : lines;
    const payload = all.map((line, i) => `${code}${i < all.length - 1 ? '-' : ' '}${line}`).join('\r\n');
    socket.write(`${payload}\r\n`);
    recordReply(transcript, payload);
  };
  const resetTransaction = () => {
    sender = null;
    accepted = 0;
  };

  const greet = async () => {
    if (kind === 'tarpit') return;
    if (kind === 'slow-banner') await sleep(behaviour.bannerDelayMs ?? BEHAVIOUR_DEFAULTS.bannerDelayMs);
    if (kind === 'blocklist-banner') {
      const blocked = REPLIES.blocked(clientIp);
      await reply(blocked.code, blocked.text);
      socket.end();
      return;
    }
    await reply(220, bannerText(behaviour));
  };

  const respond = async (line: string): Promise<void> => {
    if (kind === 'tarpit' || socket.destroyed) return;
    const verb = line.split(' ', 1)[0]?.toUpperCase() ?? '';
    const argument = line.slice(verb.length).trim();
    switch (verb) {
      case 'EHLO':
        if (kind === 'helo-only') return reply(REPLIES.ehloUnsupported.code, REPLIES.ehloUnsupported.text);
        if (!argument) return reply(501, '5.5.4 Syntax: EHLO hostname');
        greeted = true;
        resetTransaction();
        return reply(250, [name, 'PIPELINING', '8BITMIME', 'SMTPUTF8', 'ENHANCEDSTATUSCODES']);
      case 'HELO':
        if (!argument) return reply(501, '5.5.4 Syntax: HELO hostname');
        greeted = true;
        resetTransaction();
        return reply(250, name);
      case 'MAIL': {
        if (!greeted) return reply(503, '5.5.1 Error: send HELO/EHLO first');
        if (sender !== null) return reply(503, '5.5.1 Error: nested MAIL command');
        const address = pathArgument(argument, 'FROM');
        if (address === null) return reply(501, '5.1.7 Bad sender address syntax');
        const rejection = policy.mailFrom(address);
        if (rejection) return reply(rejection.code, rejection.text);
        sender = address;
        return reply(250, '2.1.0 Ok');
      }
      case 'RCPT': {
        if (sender === null) return reply(503, '5.5.1 Error: need MAIL command');
        const recipient = pathArgument(argument, 'TO');
        if (!recipient) return reply(501, '5.1.3 Bad recipient address syntax');
        if (kind === 'drop-at-rcpt') {
          transcript('* dropped instead of replying');
          socket.destroy();
          return;
        }
        const decision = policy.rcptTo({ clientIp, sender, recipient, accepted });
        if (decision.code < 300) accepted++;
        await reply(decision.code, decision.text.split('\n'));
        if (kind === 'drop-after-rcpt') {
          transcript('* dropped after replying');
          socket.end();
        }
        return;
      }
      case 'RSET':
        resetTransaction();
        return reply(250, '2.0.0 Ok');
      case 'NOOP':
        return reply(250, '2.0.0 Ok');
      case 'VRFY':
        return reply(252, '2.0.0 Cannot VRFY user, but will accept message and attempt delivery');
      case 'DATA':
        return reply(REPLIES.dataRefused.code, REPLIES.dataRefused.text);
      case 'QUIT':
        await reply(221, '2.0.0 Bye');
        socket.end();
        return;
      case 'STARTTLS':
        return reply(502, '5.5.1 Error: command not implemented');
      default:
        return reply(502, '5.5.2 Error: command not recognized');
    }
  };

  // One chain keeps replies in command order whatever the delays.
  let queue: Promise<void> = greet();
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  socket.on('data', (chunk: string) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end).replace(/\r$/, '');
      pending = pending.slice(end + 1);
      transcript(`C: ${line}`);
      countCommand(stats, line);
      const receivedAt = Date.now();
      queue = queue.then(() => {
        replyDueAt = receivedAt + replyDelayMs;
        return respond(line);
      });
    }
    if (pending.length > MAX_PENDING_INPUT) socket.destroy();
  });
}
