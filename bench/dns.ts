/**
 * DNS stage benchmark: `checkDns` over N distinct domains through CachedDnsResolver(NodeDnsResolver)
 * against the mail world's DNS server (wildcard `dN.bench.test` → MX mx.bench.test). Cold: every
 * name goes to the server once. Warm: the same names again, answered from the cache.
 *
 * The server runs in a worker thread (this same file) by default, so its packet encoding does not
 * share the measuring thread's CPU; `serverInWorker: false` runs it in-process.
 */
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { SystemClock } from '../src/adapters/clock/system.ts';
import { CachedDnsResolver } from '../src/adapters/dns/cached-resolver.ts';
import { NodeDnsResolver } from '../src/adapters/dns/node-resolver.ts';
import { checkDns } from '../src/verification/checks/dns.ts';
import { startDnsWorld } from '../tests/mailworld/dns-server.ts';

export interface DnsBenchOptions {
  /** Distinct domains (default 10,000). */
  domains?: number;
  /** Passes over the warm cache; the best one is reported (default 10). */
  warmRounds?: number;
  /** Run the DNS server in a worker thread (default true). */
  serverInWorker?: boolean;
  /** NodeDnsResolver's cap on queries on the wire (default: its own). */
  maxInFlight?: number;
}

export interface DnsFigures {
  coldPerSec: number;
  warmPerSec: number;
  domains: number;
  /** Cold lookups that did not end as `mx` (timeouts, drops): should be 0. */
  coldFailures: number;
}

interface RunningServer {
  servers: string;
  close(): Promise<void>;
}

async function startServer(inWorker: boolean): Promise<RunningServer> {
  if (!inWorker) return startDnsWorld();
  // Loader hooks are per thread in Node 20: the worker registers tsx itself, then loads this file.
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`;
  const worker = new Worker(source, { eval: true });
  const servers = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    servers,
    close: async () => {
      await worker.terminate();
    },
  };
}

/** Measures cold and warm DNS-stage throughput over distinct domains. */
export async function benchDns(options: DnsBenchOptions = {}): Promise<DnsFigures> {
  const count = options.domains ?? 10_000;
  const warmRounds = options.warmRounds ?? 10;
  const server = await startServer(options.serverInWorker ?? true);
  try {
    const resolver = new CachedDnsResolver(
      new NodeDnsResolver({ servers: [server.servers], maxInFlight: options.maxInFlight }),
      new SystemClock(),
    );
    // A fresh label per run keeps the names cold even if the server were to cache.
    const run = Date.now().toString(36);
    const domains = Array.from({ length: count }, (_, i) => `d${i}-${run}.bench.test`);

    let started = performance.now();
    const cold = await Promise.all(domains.map((domain) => checkDns(domain, resolver)));
    const coldMs = performance.now() - started;
    const coldFailures = cold.filter((result) => result.outcome !== 'mx').length;

    let bestWarmMs = Number.POSITIVE_INFINITY;
    for (let round = 0; round < warmRounds; round++) {
      started = performance.now();
      // One address after another, as the pipeline awaits its DNS stage.
      for (const domain of domains) await checkDns(domain, resolver);
      bestWarmMs = Math.min(bestWarmMs, performance.now() - started);
    }
    return {
      coldPerSec: (count / coldMs) * 1000,
      warmPerSec: (count / bestWarmMs) * 1000,
      domains: count,
      coldFailures,
    };
  } finally {
    await server.close();
  }
}

if (!isMainThread && parentPort) {
  // Worker side: serve the mail world's zones and report the address.
  const world = await startDnsWorld();
  parentPort.postMessage(world.servers);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const figures = await benchDns();
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(`DNS stage, ${fmt(figures.domains)} distinct domains, CachedDnsResolver(NodeDnsResolver)`);
  console.log(`  cold ${fmt(figures.coldPerSec)} addresses/s (${figures.coldFailures} failed)`);
  console.log(`  warm ${fmt(figures.warmPerSec)} addresses/s`);
}
