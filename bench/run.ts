/**
 * `npm run bench`: every benchmark, each as a ratio against peers measured in the same run.
 * Not a test: figures vary with the machine; docs/benchmarks.md records a run.
 */
import { benchApi, printApiFigures } from './api.ts';
import { benchDns } from './dns.ts';
import { benchOffline } from './offline.ts';
import { benchSmtp } from './smtp.ts';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const offline = await benchOffline(Number(process.env.BENCH_ADDRESSES ?? 100_000));
console.log(
  `\noffline stages (normalize → scoring, DNS from a warm cache), ${fmt(offline.addresses)} mixed addresses`,
);
console.log(`  mailvet pipeline              ${fmt(offline.mailvetPerSec)} addresses/s`);
console.log(`  validator.isEmail + mailcheck ${fmt(offline.peersPerSec)} addresses/s`);
console.log(`    validator.isEmail alone     ${fmt(offline.validatorPerSec)} addresses/s`);
console.log(`    mailcheck.run alone         ${fmt(offline.mailcheckPerSec)} addresses/s`);
console.log(`  ratio mailvet / peers         ${offline.ratio.toFixed(2)}× (target ≥ 2×)`);

const dns = await benchDns();
console.log(`\nDNS stage against the local DNS server, ${fmt(dns.domains)} distinct domains`);
console.log(`  cold (every name asked upstream) ${fmt(dns.coldPerSec)} lookups/s`);
console.log(`  warm (answered from the cache)   ${fmt(dns.warmPerSec)} lookups/s`);

const smtp = await benchSmtp();
console.log(`\nSMTP probe, ${smtp.addresses} addresses at one domain in one bulk request, 20 ms per reply`);
console.log(`  one /verify                  ${smtp.singleVerifyMs.toFixed(0)} ms`);
console.log(
  `  bulk of ${smtp.addresses}                  ${smtp.bulkMs.toFixed(0)} ms (${(smtp.bulkMs / smtp.singleVerifyMs).toFixed(2)}× one /verify, target ≤ 3×), ${smtp.bulkConnections} SMTP connections (target ≤ 3), ${smtp.bulkDeliverable} deliverable`,
);
console.log(
  `  deep-email-validator         ${smtp.peerMs.toFixed(0)} ms, ${smtp.peerConnections} SMTP connections, ${smtp.peerValid} valid`,
);

// Last: about a minute of load (servers in child processes, autocannon here).
printApiFigures(await benchApi({ durationSec: Number(process.env.BENCH_API_SECONDS ?? 10) }));
