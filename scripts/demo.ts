/**
 * `npm run demo`: Mailvet to try on a machine with no internet (or no account anywhere), in one
 * command and without root. It starts
 * - the demos' mail world (scripts/demo/world.ts): DNS and SMTP servers on loopback high ports, with
 *   a host that knows its users, a catch-all, a greylister, a disposable provider, typo domains and
 *   domains that do not exist;
 * - `mailvet serve` on it (127.0.0.1, port 8080 or `--port`), its data in a temporary directory (or
 *   `--data-dir`);
 * - the Mailchimp stand-in (the tests' emulator) with a shop whose contacts live in that world;
 * - the HubSpot stand-in (the tests' emulator too) with a portal whose contacts live there as well;
 * then seeds, through the API, a user, an API key and both connections, writes a sample
 * CSV, verifies the addresses to try, and prints it all. Ctrl-C (or SIGTERM) stops everything and
 * removes the temporary directory.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startHubSpotEmulator } from '../tests/hubspot/emulator.ts';
import { startMailchimpEmulator } from '../tests/mailchimp/emulator.ts';
import { CLI_EXAMPLE, DEMO_ADDRESSES, sampleCsv } from './demo/addresses.ts';
import { DEMO_CREDENTIALS, DemoApi } from './demo/api.ts';
import { demoBanner } from './demo/banner.ts';
import {
  CUSTOMERS_LIST,
  HUBSPOT_CONTACTS,
  OPTED_OUT_CONTACTS,
  seedHubSpotStandIn,
} from './demo/hubspot-stand-in.ts';
import { DEMO_USAGE, DemoUsageError, parseDemoOptions } from './demo/options.ts';
import { assertPortFree, type DemoServer, startDemoServer } from './demo/server.ts';
import { mailchimpBaseUrl, SUBSCRIBED_CONTACTS, seedStandIn } from './demo/stand-in.ts';
import { startDemoWorld, worldEnvironment } from './demo/world.ts';

/**
 * The server's settings beside the world's: a Mailchimp run looks at its progress every half
 * second (default 5 s), and a list checks a greylisted or unreachable address again after 2 s
 * (default 5 minutes), so a list or a run completes while the newcomer watches.
 */
const DEMO_SERVER_ENV = {
  MAILVET_RUN_POLL_MS: '500',
  MAILVET_LIST_RECHECK_MS: '2000',
  MAILVET_LIST_SWEEP_MS: '1000',
};

let options: ReturnType<typeof parseDemoOptions>;
try {
  options = parseDemoOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof DemoUsageError)) throw error;
  console.error(`demo: ${error.message}\n\n${DEMO_USAGE}`);
  process.exit(2);
}
if (options.help) {
  console.log(DEMO_USAGE);
  process.exit(0);
}

/** What to undo at the end, last started first. */
const closers: Array<() => Promise<unknown>> = [];
let server: DemoServer | undefined;
let stopping: Promise<void> | undefined;

/** Stops everything once, then exits with `code`. */
function stop(code: number): Promise<void> {
  stopping ??= (async () => {
    for (const close of closers.reverse()) {
      await close().catch((error: unknown) =>
        console.error(`demo: while stopping: ${(error as Error).message}`),
      );
    }
    process.exit(code);
  })();
  return stopping;
}
/** The first signal stops everything in order; another one, while that waits, kills the server at once. */
function onSignal(): void {
  if (stopping !== undefined) server?.kill();
  void stop(0);
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// The last resort of an exit no handler saw through: the server never outlives the demo.
process.once('exit', () => server?.kill());

try {
  await assertPortFree(options.port);
  const ownDataDir = options.dataDir === null;
  const dataDir = ownDataDir ? await mkdtemp(join(tmpdir(), 'mailvet-demo-')) : resolve(options.dataDir!);
  if (ownDataDir) closers.push(() => rm(dataDir, { recursive: true, force: true }));
  else await mkdir(dataDir, { recursive: true, mode: 0o700 });
  console.log(
    'Starting the demo: a mail world on loopback, a Mailvet server on it, Mailchimp and HubSpot stand-ins…',
  );

  const [world, emulator, hubspotEmulator] = await Promise.all([
    startDemoWorld(),
    startMailchimpEmulator(),
    startHubSpotEmulator(),
  ]);
  closers.push(
    () => world.close(),
    () => emulator.close(),
    () => hubspotEmulator.close(),
  );
  const shop = seedStandIn(emulator);
  const crm = seedHubSpotStandIn(hubspotEmulator);
  const started = await startDemoServer({
    port: options.port,
    dataDir,
    env: {
      ...worldEnvironment(world),
      MAILVET_MAILCHIMP_BASE_URL: mailchimpBaseUrl(emulator),
      MAILVET_HUBSPOT_BASE_URL: hubspotEmulator.origin,
      ...DEMO_SERVER_ENV,
    },
    onSpawn: (spawned) => {
      server = spawned;
      closers.push(() => spawned.stop());
    },
  });

  const sampleList = join(dataDir, 'sample-list.csv');
  await writeFile(sampleList, sampleCsv());
  const api = new DemoApi(started.url);
  await api.signIn();
  const key = await api.createKey('demo');
  const connected = await api.connect('mailchimp', shop.account.apiKey);
  const portal = await api.connect('hubspot', crm.token);
  const results = [];
  for (const { email } of DEMO_ADDRESSES) results.push(await api.verify(key, email));

  console.log(
    demoBanner({
      url: started.url,
      ...DEMO_CREDENTIALS,
      key,
      sampleList,
      mailchimp: {
        accountName: connected.account_name,
        audienceName: shop.audience.name,
        contacts: SUBSCRIBED_CONTACTS.length,
      },
      hubspot: {
        accountName: portal.account_name,
        listName: CUSTOMERS_LIST,
        listContacts: crm.portal.lists.get(crm.customersListId)?.members.size ?? 0,
        contacts: HUBSPOT_CONTACTS.length + OPTED_OUT_CONTACTS.length,
        optedOut: OPTED_OUT_CONTACTS.length,
        url: hubspotEmulator.origin,
        token: crm.token,
      },
      results,
      worldEnv: worldEnvironment(world),
      cliExample: CLI_EXAMPLE,
      dataDir,
      removedAtExit: ownDataDir,
      logFile: started.logFile,
    }),
  );
} catch (error) {
  // Stopped while starting: what failed then is only the stop itself.
  if (stopping === undefined) console.error(`demo: ${(error as Error).message}`);
  await stop(1);
}
