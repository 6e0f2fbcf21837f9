/**
 * Silent SMTP hosts for the probe attacks: TCP listeners on loopback addresses that accept and
 * never say a word (a tarpit), each counting the connections it received, and the DNS zones that
 * point attackers' domains at them.
 */
import net from 'node:net';
import type { Zones } from '../mailworld/dns-server.ts';

/** Listeners on `addresses`, all on `port`; `connections` counts every accepted socket. */
export interface SilentHosts {
  readonly connections: number;
  close(): Promise<void>;
}

/** Starts one tarpit listener per address. */
export async function startSilentHosts(addresses: readonly string[], port: number): Promise<SilentHosts> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const servers = await Promise.all(
    addresses.map(
      (address) =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer((socket) => {
            connections += 1;
            sockets.add(socket);
            socket.on('error', () => {});
            socket.on('close', () => sockets.delete(socket));
          });
          server.once('error', reject);
          server.listen(port, address, () => resolve(server));
        }),
    ),
  );
  return {
    get connections() {
      return connections;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

/** `count` loopback addresses from 127.0.`third`.1 on, never the mail world's 127.0.0.x. */
export function loopbackAddresses(count: number, third = 3): string[] {
  return Array.from({ length: count }, (_, i) => `127.0.${third + Math.floor(i / 250)}.${(i % 250) + 1}`);
}

/**
 * Zones for `domains` that each name `mxPerDomain` MX hosts, every MX host resolving to all of
 * `addresses` (the attacker's fan-out: hosts × addresses connections per probe, unless capped).
 */
export function fanOutZones(
  domains: readonly string[],
  mxPerDomain: number,
  addresses: readonly string[],
): Zones {
  const zones: Zones = {};
  for (const domain of domains) {
    zones[domain] = {
      mx: Array.from({ length: mxPerDomain }, (_, i) => ({ exchange: `mx${i}.${domain}`, priority: 10 + i })),
    };
    for (let i = 0; i < mxPerDomain; i++) zones[`mx${i}.${domain}`] = { a: [...addresses] };
  }
  return zones;
}
