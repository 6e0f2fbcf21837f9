/**
 * Plain TCP from this host to the MX address: the dialer when no proxy is configured.
 */
import net from 'node:net';
import { DIAL_CANCELLED, type Dialer, type DialResult, type DialTarget } from './dialer.ts';

/** Connects straight to the MX address. */
export class DirectDialer implements Dialer {
  readonly id = '';
  readonly helo = undefined;

  /** Opens a TCP connection within `timeoutMs`, closed at once when `signal` aborts. */
  dial(target: DialTarget): Promise<DialResult> {
    const { signal } = target;
    if (signal?.aborted) return Promise.resolve(DIAL_CANCELLED);
    return new Promise((resolve) => {
      const socket = net.connect({ host: target.ip, port: target.port });
      socket.setNoDelay(true);
      let settled = false;
      const finish = (result: DialResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancel);
        // On success the SMTP connection attaches its own error handler before any I/O callback runs.
        if (result.ok) socket.removeAllListeners('error');
        else socket.destroy();
        resolve(result);
      };
      const cancel = () => finish(DIAL_CANCELLED);
      signal?.addEventListener('abort', cancel, { once: true });
      const timer = setTimeout(
        () =>
          finish({ ok: false, failure: 'timeout', detail: `no connection within ${target.timeoutMs} ms` }),
        target.timeoutMs,
      );
      socket.once('error', (error) =>
        finish({ ok: false, failure: 'connect_failed', detail: error.message }),
      );
      socket.once('connect', () => finish({ ok: true, socket }));
    });
  }
}

/** The dialer of every probe when no proxy is configured. */
export const DIRECT_DIALER: Dialer = new DirectDialer();
