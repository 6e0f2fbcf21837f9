/**
 * A loopback port that was free a moment ago (bound on 0, then closed): for a server whose URL must
 * be known before it starts (MAILVET_PUBLIC_URL, a reverse proxy's upstream), or a port where
 * nothing listens.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port === 0 ? reject(new Error('no port was given')) : resolve(port)));
    });
  });
}
