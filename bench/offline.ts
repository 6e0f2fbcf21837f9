/**
 * Offline stages benchmark: normalize → syntax → lists → suggestions → DNS (warm cache) → scoring
 * over a mixed corpus, side by side in the same process with the peers' combined work
 * (validator's isEmail + mailcheck's run). Rounds alternate so machine noise hits both alike.
 */
import mailcheck from 'mailcheck';
import validator from 'validator';
import { SystemClock } from '../src/adapters/clock/system.ts';
import { CachedDnsResolver } from '../src/adapters/dns/cached-resolver.ts';
import { defaultListChecker } from '../src/verification/checks/domain-lists.ts';
import { SkippingProber } from '../src/verification/checks/smtp-skipped.ts';
import { Verifier } from '../src/verification/pipeline.ts';
import type { DnsAnswer, DnsResolver } from '../src/verification/ports.ts';
import type { MxRecord } from '../src/verification/report.ts';
import { mixedCorpus } from './corpus.ts';

/** Answers every name from memory, as a warm upstream would; the cache in front is what is measured. */
class MemoryZone implements DnsResolver {
  async resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    if (domain.startsWith('company1') && domain.endsWith('7.com'))
      return { kind: 'nxdomain', ttlSeconds: 300 };
    return { kind: 'ok', records: [{ exchange: `mx.${domain}`, priority: 10 }], ttlSeconds: 3600 };
  }
  async resolveA(): Promise<DnsAnswer<string[]>> {
    return { kind: 'ok', records: ['192.0.2.1'], ttlSeconds: 3600 };
  }
  async resolveAaaa(): Promise<DnsAnswer<string[]>> {
    return { kind: 'nodata', ttlSeconds: 3600 };
  }
}

export interface OfflineFigures {
  addresses: number;
  mailvetPerSec: number;
  peersPerSec: number;
  ratio: number;
  validatorPerSec: number;
  mailcheckPerSec: number;
}

/** Runs the offline benchmark; `rounds` alternating measurements, the best of each side reported. */
export async function benchOffline(count = 100_000, rounds = 5): Promise<OfflineFigures> {
  const corpus = mixedCorpus(count);
  const verifier = new Verifier({
    dns: new CachedDnsResolver(new MemoryZone(), new SystemClock()),
    prober: new SkippingProber(),
    lists: defaultListChecker,
    clock: new SystemClock(),
  });
  await runMailvet(verifier, corpus); // warm: DNS cache, JIT, lazy data

  let best = { mailvet: 0, peers: 0, validator: 0, mailcheck: 0 };
  for (let round = 0; round < rounds; round++) {
    const mailvet = await runMailvet(verifier, corpus);
    const peers = runPeers(corpus, true, true);
    const onlyValidator = runPeers(corpus, true, false);
    const onlyMailcheck = runPeers(corpus, false, true);
    best = {
      mailvet: Math.max(best.mailvet, mailvet),
      peers: Math.max(best.peers, peers),
      validator: Math.max(best.validator, onlyValidator),
      mailcheck: Math.max(best.mailcheck, onlyMailcheck),
    };
  }
  return {
    addresses: count,
    mailvetPerSec: best.mailvet,
    peersPerSec: best.peers,
    ratio: best.mailvet / best.peers,
    validatorPerSec: best.validator,
    mailcheckPerSec: best.mailcheck,
  };
}

async function runMailvet(verifier: Verifier, corpus: readonly string[]): Promise<number> {
  const started = performance.now();
  let checksum = 0;
  // Batches of concurrent verifications, as a server would run them.
  for (let i = 0; i < corpus.length; i += 1000) {
    const batch = corpus.slice(i, i + 1000).map((address) => verifier.verify(address));
    for (const result of await Promise.all(batch)) checksum += result.score;
  }
  if (checksum < 0) throw new Error('unreachable: keeps the work observable');
  return corpus.length / ((performance.now() - started) / 1000);
}

function runPeers(corpus: readonly string[], useValidator: boolean, useMailcheck: boolean): number {
  const started = performance.now();
  let checksum = 0;
  for (const address of corpus) {
    try {
      if (useValidator && validator.isEmail(address)) checksum++;
      if (useMailcheck) {
        mailcheck.run({
          email: address,
          suggested: () => {
            checksum++;
          },
          empty: () => {},
        });
      }
    } catch {
      // Both peers throw on some inputs (lone surrogates); the benchmark corpus has none.
    }
  }
  if (checksum < 0) throw new Error('unreachable');
  return corpus.length / ((performance.now() - started) / 1000);
}
