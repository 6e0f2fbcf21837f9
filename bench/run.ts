/**
 * `npm run bench`: every benchmark, each as a ratio against peers measured in the same run.
 * Not a test: figures vary with the machine; docs/benchmarks.md records a run.
 *
 * `npm run bench -- lists api` runs only the sections named (offline, dns, smtp, lists, lists-postgres, mailchimp, hubspot,
 * api, dashboard, startup, catch-all, catch-all-e2e, accuracy).
 */
import { accuracyLines, loadReplyCorpus, measureReplyAccuracy } from '../scripts/reply-accuracy.ts';
import { benchApi, printApiFigures } from './api.ts';
import { benchCatchAll, printCatchAllFigures } from './catch-all.ts';
import { benchCatchAllE2e, printCatchAllE2eFigures } from './catch-all-e2e.ts';
import { benchDashboard, printDashboardFigures } from './dashboard.ts';
import { benchDns } from './dns.ts';
import { benchHubSpot, printHubSpotFigures } from './hubspot.ts';
import { benchLists, printListFigures, printListSqlTimings } from './lists.ts';
import { benchMailchimp, printMailchimpFigures } from './mailchimp.ts';
import { benchOffline } from './offline.ts';
import { benchSmtp, printSmtpFigures } from './smtp.ts';
import { benchStartup, printStartupFigures } from './startup.ts';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const SECTIONS = [
  'offline',
  'dns',
  'smtp',
  'lists',
  'lists-postgres',
  'mailchimp',
  'hubspot',
  'api',
  'dashboard',
  'startup',
  'catch-all',
  'catch-all-e2e',
  'accuracy',
] as const;
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(SECTIONS as readonly string[]).includes(name));
if (unknown.length > 0) {
  console.error(`unknown section ${unknown.join(', ')}: use ${SECTIONS.join(', ')}`);
  process.exit(2);
}
const runs = (section: (typeof SECTIONS)[number]) => asked.length === 0 || asked.includes(section);

// The RCPT classifier against the labelled corpus of real replies (instant; no peers to race).
if (runs('accuracy')) {
  console.log("\nmailbox verdicts on real mail servers' replies (tests/fixtures/smtp-reply-corpus/)");
  for (const line of accuracyLines(measureReplyAccuracy(loadReplyCorpus()))) console.log(`  ${line}`);
}

if (runs('offline')) {
  const offline = await benchOffline(Number(process.env.BENCH_ADDRESSES ?? 100_000));
  console.log(
    `\noffline stages (normalize → scoring, DNS from a warm cache), ${fmt(offline.addresses)} mixed addresses`,
  );
  console.log(`  mailvet pipeline              ${fmt(offline.mailvetPerSec)} addresses/s`);
  console.log(`  validator.isEmail + mailcheck ${fmt(offline.peersPerSec)} addresses/s`);
  console.log(`    validator.isEmail alone     ${fmt(offline.validatorPerSec)} addresses/s`);
  console.log(`    mailcheck.run alone         ${fmt(offline.mailcheckPerSec)} addresses/s`);
  console.log(`  ratio mailvet / peers         ${offline.ratio.toFixed(2)}× (target ≥ 2×)`);
}

if (runs('dns')) {
  const dns = await benchDns();
  console.log(`\nDNS stage against the local DNS server, ${fmt(dns.domains)} distinct domains`);
  console.log(`  cold (every name asked upstream) ${fmt(dns.coldPerSec)} lookups/s`);
  console.log(`  warm (answered from the cache)   ${fmt(dns.warmPerSec)} lookups/s`);
}

if (runs('smtp')) printSmtpFigures(await benchSmtp());

// About a minute: a 100,000-row list through a `mailvet serve` child on the mail world.
let sqliteLists: Awaited<ReturnType<typeof benchLists>> | undefined;
if (runs('lists')) {
  sqliteLists = await benchLists({ profileDir: process.env.BENCH_LISTS_PROFILE });
  printListFigures(sqliteLists);
  printListSqlTimings();
}
// The same list on PostgreSQL (DATABASE_URL, or the local server): target within 1.5× of SQLite.
if (runs('lists-postgres')) {
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const onPostgres = await benchLists({ databaseUrl, profileDir: process.env.BENCH_LISTS_PROFILE });
  printListFigures(onPostgres);
  printListSqlTimings();
  if (sqliteLists !== undefined) {
    const slower = sqliteLists.rowsPerSec / onPostgres.rowsPerSec;
    console.log(
      `  SQLite / PostgreSQL rows/s    ${slower.toFixed(2)}× (target ≤ 1.5×): ${slower <= 1.5 ? 'met' : 'NOT met'}`,
    );
  }
}

// A few minutes: a 50,000-member audience read, verified and written back, then the same as a list.
if (runs('mailchimp')) printMailchimpFigures(await benchMailchimp());
if (runs('hubspot')) printHubSpotFigures(await benchHubSpot());

// Some 15 page loads in Chromium against a `mailvet serve` child (a few seconds).
if (runs('dashboard')) printDashboardFigures(await benchDashboard());

// Last: about a minute of load (servers in child processes, autocannon here).
if (runs('api')) {
  printApiFigures(
    await benchApi({
      durationSec: Number(process.env.BENCH_API_SECONDS ?? 3),
      rounds: Number(process.env.BENCH_API_ROUNDS ?? 8),
      profileDir: process.env.BENCH_API_PROFILE,
      sqlTimingsFile: process.env.BENCH_API_SQL,
    }),
  );
}

// Some 40 process starts, from the build and from the sources (half a minute).
if (runs('startup')) printStartupFigures(await benchStartup());

// Not a timing: how well catch-all confidence orders the held-out synthetic corpus (AUC), in a second.
if (runs('catch-all')) printCatchAllFigures(benchCatchAll('held-out'));

// The same held-out corpus through the running server on its mail world: feedback, one list, results (some seconds).
if (runs('catch-all-e2e')) printCatchAllE2eFigures(await benchCatchAllE2e('held-out'));
