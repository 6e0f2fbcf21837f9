/**
 * A minimal SMTP host for the shared-state tests: accepts every recipient (a catch-all), records
 * each RCPT, counts concurrently open sessions, and can hold each session open for a while so
 * overlapping sessions are visible.
 */
import { createServer, type Socket } from 'node:net';

/** A running tiny host on 127.0.0.1. */
export interface TinySmtp {
  port: number;
  rcpts: string[];
  /** Sessions open now, and the most ever open at once. */
  open: number;
  maxOpen: number;
  sessions: number;
  close(): Promise<void>;
}

/**
 * Starts the host; each session's first MAIL FROM is answered after `holdMs`. It listens on
 * `listen.host` (127.0.0.1) and `listen.port` (any free port).
 */
export async function startTinySmtp(
  holdMs = 0,
  listen: { host?: string; port?: number } = {},
): Promise<TinySmtp> {
  const sockets = new Set<Socket>();
  const state = { rcpts: [] as string[], open: 0, maxOpen: 0, sessions: 0 };
  const server = createServer((socket) => {
    sockets.add(socket);
    state.open += 1;
    state.sessions += 1;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    let held = false;
    let buffer = '';
    // A session ends at QUIT (the client's release follows the 221), or when the socket closes.
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      state.open -= 1;
    };
    socket.on('close', () => {
      sockets.delete(socket);
      end();
    });
    socket.on('error', () => {});
    socket.write('220 tiny.test ESMTP\r\n');
    socket.on('data', async (chunk) => {
      buffer += chunk.toString('latin1');
      let eol = buffer.indexOf('\r\n');
      while (eol >= 0) {
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 tiny.test\r\n');
        else if (verb === 'MAIL') {
          if (!held && holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
          held = true;
          socket.write('250 2.1.0 ok\r\n');
        } else if (verb === 'RCPT') {
          state.rcpts.push(line.slice(8).trim());
          socket.write('250 2.1.5 ok\r\n');
        } else if (verb === 'QUIT') {
          end();
          socket.end('221 bye\r\n');
        } else socket.write('250 ok\r\n');
        eol = buffer.indexOf('\r\n');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port ?? 0, listen.host ?? '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return Object.assign(state, {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}
