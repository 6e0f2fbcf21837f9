/**
 * `fetch` for requests to third-party APIs (Mailchimp), behind the SSRF guard: every
 * address a host name resolves to is checked when the connection is made, so a name that points
 * (or is re-pointed) at loopback, private, link-local or reserved space is refused. The connection
 * goes to the address checked: the check sits in the socket's own `lookup`.
 */
import { lookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { probeRefusal } from '../../net/address-guard.ts';

export interface GuardedFetchOptions {
  /**
   * Allow private and loopback addresses: only when the operator pointed the API at such an
   * address on purpose (a local emulator), see `isLocalTarget`.
   */
  allowPrivate: boolean;
  /** Connect timeout, ms. */
  connectTimeoutMs?: number;
}

/** A `fetch` whose connections pass the address guard. */
export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, '', 0);
      const list = addresses as unknown as Array<{ address: string; family: number }>;
      const allowed = options.allowPrivate
        ? list
        : list.filter((entry) => probeRefusal(entry.address) === null);
      const first = allowed[0];
      if (first === undefined) {
        const refused = new Error(`${hostname} resolves only to addresses outside the public internet`);
        return callback(Object.assign(refused, { code: 'EADDRNOTPUBLIC' }), '', 0);
      }
      if ((lookupOptions as { all?: boolean }).all === true) return callback(null, allowed as never);
      return callback(null, first.address, first.family);
    });
  };
  // undici is loaded at the first request: a process that never calls a third party never pays for it.
  let client: Promise<{ dispatcher: Agent; undiciFetch: typeof import('undici').fetch }> | undefined;
  const connect = () =>
    import('undici').then(({ Agent, fetch: undiciFetch }) => ({
      dispatcher: new Agent({
        connect: { lookup: guardedLookup, timeout: options.connectTimeoutMs ?? 10_000 },
      }),
      undiciFetch,
    }));
  return (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    client ??= connect();
    const { dispatcher, undiciFetch } = await client;
    return undiciFetch(input as never, { ...(init as object), dispatcher } as never);
  }) as unknown as typeof fetch;
}

/** Whether a configured URL names a loopback or private address literally (or `localhost`). */
export function isLocalTarget(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || (probeRefusal(host) !== null && probeRefusal(host) !== 'invalid');
}
