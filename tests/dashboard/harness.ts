/**
 * The dashboard's browser tests (and scripts/screenshots.ts, and bench/dashboard.ts) drive the
 * built dashboard in Chromium against a real `mailvet serve` child process on a fresh data dir,
 * pointed at the mail world on loopback.
 *
 * - Chromium is Debian's (`/usr/bin/chromium`, or `MAILVET_CHROMIUM`), driven by playwright-core.
 *   Outside CI a suite skips, with its reason, when the browser or the build (dist/web) is missing;
 *   under `CI=true` that throws instead, so a CI machine without them can never pass by skipping.
 * - The server listens on a port chosen here, and MAILVET_PUBLIC_URL is the very URL the browser
 *   opens (http://127.0.0.1:PORT), so the API's Origin checks see the page as its own.
 * - With `mailchimp: true` a Mailchimp emulator (tests/mailchimp) starts beside the server, which
 *   is pointed at it (MAILVET_MAILCHIMP_BASE_URL): the test adds accounts and audiences there.
 * - With `mailchimpOAuth: true` that emulator also answers OAuth for MAILCHIMP_OAUTH_CLIENT, and the
 *   server is set up as Mailchimp's registered app (client id and secret, MAILVET_MAILCHIMP_LOGIN_URL),
 *   so the Integrations page offers a "Connect Mailchimp" link. Its callback is under MAILVET_PUBLIC_URL,
 *   the server's own URL. The login URL names the emulator as `localhost`, not 127.0.0.1: to the
 *   browser the consent page is then another site, as login.mailchimp.com is, and the session cookie
 *   must survive the way back from it.
 * - The dashboard polls with the account's rate limit: flows where the rate is not the point run on
 *   a plans file whose free plan (the one sign-up gives) allows 1,000 requests a second
 *   (`plans: 'generous'`); `plans: 'built-in'` keeps the real defaults.
 *
 * Run from the repository root (spawnServe starts `node bin/mailvet serve`).
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import net, { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { type MailchimpEmulator, startMailchimpEmulator } from '../mailchimp/emulator.ts';
import type { Zones } from '../mailworld/dns-server.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';
import { mailvet, type ServeProcess, spawnServe } from '../scale-out/processes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The built dashboard's page; `npm run build` (or `npm run build:web`) makes it. */
export const BUILT_DASHBOARD = join(ROOT, 'dist/web/index.html');
/** Debian's Chromium, unless MAILVET_CHROMIUM names another. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

/** The Chromium to drive. */
export function chromiumPath(): string {
  return process.env.MAILVET_CHROMIUM?.trim() || DEFAULT_CHROMIUM;
}

/** What a suite needs: the browser's path, or null with the reason the suite skips. */
export type DashboardAvailability =
  | { executablePath: string; skipReason: undefined }
  | { executablePath: null; skipReason: string };

/**
 * Chromium and the built dashboard. Skips (or, under `CI=true`, throws) when either is missing.
 * `suite` names what is skipped, e.g. "dashboard main flow".
 */
export function requireDashboard(suite: string): DashboardAvailability {
  const executablePath = chromiumPath();
  if (!isExecutable(executablePath)) {
    return unavailable(
      `Chromium not found at ${executablePath} (install Debian's chromium package or set MAILVET_CHROMIUM)`,
      suite,
    );
  }
  if (!existsSync(BUILT_DASHBOARD)) {
    return unavailable(`the dashboard is not built (no ${BUILT_DASHBOARD}: run npm run build)`, suite);
  }
  return { executablePath, skipReason: undefined };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function unavailable(problem: string, suite: string): DashboardAvailability {
  if (process.env.CI === 'true') throw new Error(`${problem}: under CI=true the ${suite} must run`);
  return { executablePath: null, skipReason: `${problem}: ${suite} skipped` };
}

/** Starts Debian's Chromium headless (never a downloaded browser: `playwright install` is not used). */
export function launchChromium(executablePath: string = chromiumPath()): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

/** A browser context with fixed locale and time zone, so numbers and dates read the same everywhere. */
export function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ locale: 'en-US', timezoneId: 'UTC', ...options });
}

/** Plans of the server: the built-in ones, or a free plan whose rate never gets in a test's way. */
export type PlanChoice = 'built-in' | 'generous';

/** The MAILVET_PLANS file of `plans: 'generous'`: sign-up's free plan, with room to spare. */
export const GENEROUS_PLANS = {
  free: {
    monthly_verifications: 100_000,
    monthly_bulk_requests: 1_000,
    rate_limit_per_second: 1_000,
    max_running_lists: 2,
    max_stored_rows: 100_000,
    max_unfinished_lists: 10,
    retention_days: 30,
  },
} as const;

/** A typo the suggestion stage corrects, and the correction; the mail world delivers the latter. */
export const TYPO_ADDRESS = 'alice@gmial.com';
export const CORRECTED_ADDRESS = 'alice@gmail.com';

/**
 * A domain whose MX holds every SMTP connection (accepted, silent) until the test opens the gate;
 * then each is forwarded to the accept-known host, which knows user1..user100. A list with rows
 * there cannot complete before the gate opens, so its progress can be seen part-way for sure.
 */
export const GATE_DOMAIN = 'gate.test';
/** Loopback address of the gate (the world's hosts use 127.0.0.2 up, one per behaviour). */
const GATE_ADDRESS = '127.0.0.90';
/**
 * A second domain behind a gate of its own, for a flow that must hold a list after the first gate
 * opened (a gate opens once). It forwards to the same host, which knows user1..user100.
 */
export const SECOND_GATE_DOMAIN = 'gate2.test';
const SECOND_GATE_ADDRESS = '127.0.0.91';

/**
 * Zones added to the mail world: gmail.com's MX is the world's accept-known host, so the corrected
 * address of a typo verifies fast and for real (gmial.com stays NXDOMAIN).
 */
const DASHBOARD_ZONES: Zones = {
  'gmail.com': { mx: [{ exchange: 'mx.accept.test', priority: 10 }] },
  [GATE_DOMAIN]: { mx: [{ exchange: `mx.${GATE_DOMAIN}`, priority: 10 }] },
  [`mx.${GATE_DOMAIN}`]: { a: [GATE_ADDRESS] },
  [SECOND_GATE_DOMAIN]: { mx: [{ exchange: `mx.${SECOND_GATE_DOMAIN}`, priority: 10 }] },
  [`mx.${SECOND_GATE_DOMAIN}`]: { a: [SECOND_GATE_ADDRESS] },
};

/** A running server on the mail world. */
export interface DashboardServer {
  /** http://127.0.0.1:PORT: what the browser opens, and MAILVET_PUBLIC_URL. */
  url: string;
  world: MailWorld;
  process: ServeProcess;
  dataDir: string;
  plans: PlanChoice;
  /** The MX of GATE_DOMAIN: closed (holding connections) until `open()`. */
  gate: Gate;
  /** The MX of SECOND_GATE_DOMAIN, likewise. */
  secondGate: Gate;
  /** The Mailchimp emulator the server talks to (`mailchimp` or `mailchimpOAuth`), else null. */
  mailchimp: MailchimpEmulator | null;
  /** The server's log lines at warn level and above, for a failure's message. */
  problems(): string;
  /**
   * Marks the user of `email` an operator as an operator would: `mailvet users list` and
   * `mailvet users update ID --operator` on the server's database (sign-up never makes one).
   */
  makeOperator(email: string): Promise<void>;
  /** Stops the server (SIGTERM, then SIGKILL) and the world, and removes the files. */
  close(): Promise<void>;
}

export interface DashboardServerOptions {
  /** Default 'generous'. */
  plans?: PlanChoice;
  /** Added to (or overriding) the server's environment. */
  env?: Record<string, string>;
  /** Start a Mailchimp emulator and point the server at it. Default false. */
  mailchimp?: boolean;
  /** As `mailchimp`, with OAuth set up on both sides (see the header). Default false. */
  mailchimpOAuth?: boolean;
}

/** The OAuth app the server is registered as with the emulator (`mailchimpOAuth: true`). */
export const MAILCHIMP_OAUTH_CLIENT = {
  clientId: 'mailvet-dashboard',
  clientSecret: 'dashboard-secret-0123456789',
};

const START_ATTEMPTS = 3;

/** Starts the mail world and `mailvet serve` on it. */
export async function startDashboardServer(options: DashboardServerOptions = {}): Promise<DashboardServer> {
  const plans = options.plans ?? 'generous';
  const scratch = await mkdtemp(join(tmpdir(), 'mailvet-dashboard-'));
  const dataDir = join(scratch, 'data');
  await mkdir(dataDir, { mode: 0o700 });
  let world: MailWorld | undefined;
  let gate: Gate | undefined;
  let secondGate: Gate | undefined;
  let mailchimp: MailchimpEmulator | null = null;
  try {
    const oauth = options.mailchimpOAuth === true;
    if (options.mailchimp === true || oauth)
      mailchimp = await startMailchimpEmulator(oauth ? { oauth: MAILCHIMP_OAUTH_CLIENT } : {});
    world = await startMailWorld({ zones: DASHBOARD_ZONES });
    const acceptKnown = world.hosts['accept-known'].host;
    gate = await startGate(GATE_ADDRESS, world.smtpPort, acceptKnown, world.smtpPort);
    secondGate = await startGate(SECOND_GATE_ADDRESS, world.smtpPort, acceptKnown, world.smtpPort);
    // The world's DNS server and SMTP hosts, with the service's own timeouts instead of the world's
    // (half a second, for suites that probe dead and silent hosts). Nothing here is slow on purpose
    // but the gate, and on a loaded two-core machine a server busy for half a second would see its
    // timer beat a ready answer: a healthy lookup counted as dns_error or timeout, and a list row
    // left for a recheck minutes later. The gate needs the probe to wait as long as a test holds it.
    const env: Record<string, string> = {
      MAILVET_DNS_SERVERS: world.env.MAILVET_DNS_SERVERS!,
      MAILVET_SMTP_PORT: world.env.MAILVET_SMTP_PORT!,
      MAILVET_SMTP_ALLOW_PRIVATE: 'true',
      MAILVET_SMTP_TIMEOUT_MS: '60000',
      MAILVET_SMTP_PROBE_TIMEOUT_MS: '60000',
      MAILVET_DATA_DIR: dataDir,
    };
    if (mailchimp !== null) {
      // The client appends /3.0 itself.
      env.MAILVET_MAILCHIMP_BASE_URL = mailchimp.baseUrlTemplate.replace(/\/3\.0$/, '');
      // A run looks at its list and its write batches this often: the default 5 s would make a
      // run of a few members take tens of seconds.
      env.MAILVET_RUN_POLL_MS = '100';
    }
    if (mailchimp !== null && oauth) {
      const login = new URL(mailchimp.oauthBase);
      env.MAILVET_MAILCHIMP_LOGIN_URL = `http://localhost:${login.port}`;
      env.MAILVET_MAILCHIMP_CLIENT_ID = MAILCHIMP_OAUTH_CLIENT.clientId;
      env.MAILVET_MAILCHIMP_CLIENT_SECRET = MAILCHIMP_OAUTH_CLIENT.clientSecret;
    }
    if (plans === 'generous') {
      const plansFile = join(scratch, 'plans.json');
      await writeFile(plansFile, JSON.stringify(GENEROUS_PLANS));
      env.MAILVET_PLANS = plansFile;
    }
    const { process: serve, url } = await spawnOnFreePort({ ...env, ...options.env });
    const cli = (args: string[]) => mailvet(args, { ...env, ...options.env });
    const started = world;
    const startedGates = { gate, secondGate };
    const emulator = mailchimp;
    return {
      url,
      world: started,
      process: serve,
      dataDir,
      plans,
      ...startedGates,
      mailchimp: emulator,
      problems: () =>
        [...serve.lines.filter((line) => /"level":(40|50|60)/.test(line)), serve.stderr()]
          .join('\n')
          .trim() || '(none)',
      async makeOperator(email: string) {
        const users = JSON.parse(await cli(['users', 'list', '--json'])) as Array<{
          id: string;
          email: string;
        }>;
        const user = users.find((listed) => listed.email === email.toLowerCase());
        if (user === undefined) throw new Error(`no user ${email}`);
        await cli(['users', 'update', user.id, '--operator']);
      },
      async close() {
        await serve.stop();
        await Promise.all([
          started.close(),
          startedGates.gate.close(),
          startedGates.secondGate.close(),
          emulator?.close(),
        ]);
        await rm(scratch, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await gate?.close();
    await secondGate?.close();
    await world?.close();
    await mailchimp?.close();
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
}

/** A TCP gate in front of an SMTP host. */
export interface Gate {
  /** Forwards every held connection, and every later one. */
  open(): void;
  /** What it did so far, for a failure's message. */
  state(): string;
  close(): Promise<void>;
}

async function startGate(
  host: string,
  port: number,
  upstreamHost: string,
  upstreamPort: number,
): Promise<Gate> {
  let opened = false;
  let connections = 0;
  let forwarded = 0;
  const held = new Map<Socket, Buffer[]>();
  const live = new Set<Socket>();
  const track = (socket: Socket) => {
    live.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => live.delete(socket));
  };
  const forward = (client: Socket, early: Buffer[]) => {
    forwarded++;
    const upstream = connect({ host: upstreamHost, port: upstreamPort });
    track(upstream);
    for (const chunk of early) upstream.write(chunk);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  };
  const server = net.createServer((client) => {
    connections++;
    track(client);
    if (opened) return forward(client, []);
    // Held, but read: a socket left unread whose peer hangs up can keep libuv polling it in a busy
    // loop (see tests/scale-out/tcp-proxy.ts). The client waits for the banner, so little comes.
    const early: Buffer[] = [];
    held.set(client, early);
    client.on('data', (chunk: Buffer) => early.push(chunk));
    client.once('close', () => held.delete(client));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    open() {
      opened = true;
      for (const [client, early] of held) {
        held.delete(client);
        client.removeAllListeners('data');
        if (!client.destroyed) forward(client, early);
      }
    },
    state: () =>
      `${opened ? 'open' : 'closed'}, ${connections} connection(s), ${forwarded} forwarded, ${held.size} held`,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of live) socket.destroy();
      return closed;
    },
  };
}

/** A webhook delivery as the receiver got it. */
export interface ReceivedWebhook {
  path: string;
  /** The `Mailvet-Signature` header. */
  signature: string;
  /** The raw body, as signed. */
  body: string;
}

/** An HTTP server on loopback that records every POST and answers 204. */
export interface WebhookReceiver {
  /** http://127.0.0.1:PORT (the server must run with MAILVET_WEBHOOK_ALLOW_PRIVATE=true to reach it). */
  url: string;
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

/** Starts a webhook receiver on a free loopback port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        signature: String(request.headers['mailvet-signature'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The public URL must be known before the server starts, so the port is chosen here: one the
 * system just gave out and released. Another process may take it meanwhile: then another port.
 */
async function spawnOnFreePort(env: Record<string, string>): Promise<{ process: ServeProcess; url: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    try {
      const serve = await spawnServe({
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
        MAILVET_PUBLIC_URL: url,
      });
      return { process: serve, url };
    } catch (error) {
      if (attempt >= START_ATTEMPTS || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Polls `probe` until it returns something other than undefined/false, and returns that. The guard
 * stops a hang; it is not a timing assertion (a slow machine may take longer than usual, a broken
 * dashboard never gets there).
 */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  guardMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + guardMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`still waiting after ${guardMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// --- Sessions from the test (Node's fetch), as a client other than the browser would hold them ---

/** A session held by the test: its cookie and CSRF token. */
export interface ApiSession {
  email: string;
  /** `mailvet_session=…`, for a Cookie header. */
  cookie: string;
  csrf: string;
  accountId: string;
}

export const SESSION_COOKIE = 'mailvet_session';

/** POST /api/v1/signup from the test, then GET /api/v1/session for the CSRF token. */
export async function signUpByApi(url: string, email: string, password: string): Promise<ApiSession> {
  const response = await fetch(`${url}/api/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 201)
    throw new Error(`signup ${email}: ${response.status} ${await response.text()}`);
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';', 1)[0] ?? '')
    .find((pair) => pair.startsWith(`${SESSION_COOKIE}=`));
  if (cookie === undefined) throw new Error(`signup ${email}: no ${SESSION_COOKIE} cookie`);
  return sessionFromCookie(url, email, cookie);
}

/** The session behind a cookie (GET /api/v1/session gives its CSRF token and account). */
export async function sessionFromCookie(url: string, email: string, cookie: string): Promise<ApiSession> {
  const response = await fetch(`${url}/api/v1/session`, { headers: { cookie } });
  if (response.status !== 200) throw new Error(`GET /session: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { csrf_token: string; account: { id: string } };
  return { email, cookie, csrf: body.csrf_token, accountId: body.account.id };
}

/**
 * A request the tests make to the server's API is aborted after this long: a hang guard (a request
 * that never answers fails its test by name instead of stalling the run), not a timing assertion.
 */
const API_HANG_GUARD_MS = 60_000;

/**
 * fetch /api/v1`path` with a session, as the dashboard sends it (CSRF token and Origin on unsafe
 * methods, and a read refused by the account's rate limit asked again after its Retry-After: the
 * dashboard's page loads and the test's own reads share the free plan's bucket).
 */
export async function sessionFetch(url: string, session: ApiSession, path: string, init: RequestInit = {}) {
  const method = (init.method ?? 'GET').toUpperCase();
  for (let attempt = 1; ; attempt += 1) {
    const response = await sessionFetchOnce(url, session, path, init);
    if (method !== 'GET' || response.status !== 429 || attempt === 3) return response;
    const body = (await response.clone().json()) as { code?: string };
    if (body.code !== 'rate_limited') return response;
    await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
  }
}

function sessionFetchOnce(url: string, session: ApiSession, path: string, init: RequestInit) {
  const method = (init.method ?? 'GET').toUpperCase();
  const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method);
  return fetch(`${url}/api/v1${path}`, {
    signal: AbortSignal.timeout(API_HANG_GUARD_MS),
    ...init,
    headers: {
      cookie: session.cookie,
      ...(unsafe && { origin: url, 'x-csrf-token': session.csrf }),
      ...(init.body !== undefined && typeof init.body === 'string' && { 'content-type': 'application/json' }),
      ...(init.headers as Record<string, string> | undefined),
    },
  });
}

/** fetch /api/v1`path` with a Bearer key (aborted after API_HANG_GUARD_MS, as sessionFetch). */
export function keyFetch(url: string, key: string, path: string, init: RequestInit = {}) {
  return fetch(`${url}/api/v1${path}`, {
    signal: AbortSignal.timeout(API_HANG_GUARD_MS),
    ...init,
    headers: {
      authorization: `Bearer ${key}`,
      ...(typeof init.body === 'string' && { 'content-type': 'application/json' }),
      ...(init.headers as Record<string, string> | undefined),
    },
  });
}

/** The browser context's session cookie as `mailvet_session=…`. */
export async function browserSessionCookie(context: BrowserContext): Promise<string> {
  const found = (await context.cookies()).find((cookie) => cookie.name === SESSION_COOKIE);
  if (found === undefined) throw new Error(`the browser holds no ${SESSION_COOKIE} cookie`);
  return `${found.name}=${found.value}`;
}

// --- The dashboard, driven as a person would ---

/** The page's h1 with this text. */
export function heading(page: Page, name: string | RegExp) {
  return page.getByRole('heading', { level: 1, name });
}

/** Signs up in the dashboard (the sign-up page's fields and button) and waits for the Overview. */
export async function signUpInBrowser(
  page: Page,
  url: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${url}/signup`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await heading(page, 'Overview').waitFor();
}

/** Opens a page through the main navigation (no page load) and waits for its heading. */
export async function navigate(page: Page, link: string, pageHeading: string | RegExp = link): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await heading(page, pageHeading).waitFor();
}

/** Creates a key on the API keys page and returns it, read from the "New API key" field. */
export async function createKeyInBrowser(page: Page, name: string): Promise<string> {
  await navigate(page, 'API keys');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  const field = page.getByRole('textbox', { name: 'New API key' });
  await field.waitFor();
  return field.inputValue();
}

/**
 * A CSV of about 300 mail-world addresses whose results come fast (no greylisting, no tarpit):
 * known and unknown mailboxes of the accept-known host, a catch-all domain, bad syntax, domains
 * that do not exist, and repeated rows (each repeats its address's result). Columns `name,email`.
 * `gated` adds 10 known mailboxes at GATE_DOMAIN at the end: the list completes once the gate opens.
 */
export function worldListCsv(gated = false): { csv: string; rows: number } {
  const rows: Array<{ name: string; email: string }> = [];
  const add = (email: string, name: string) => rows.push({ email, name });
  // accept-known knows user1..user100 and rejects every other mailbox.
  for (let i = 1; i <= 100; i++) add(`user${i}@accept.test`, `Known ${i}`);
  for (let i = 1; i <= 100; i++) add(`ghost${i}@accept.test`, `Unknown ${i}`);
  for (let i = 1; i <= 40; i++) add(`someone${i}@catchall.test`, `Catch-all ${i}`);
  for (let i = 1; i <= 20; i++) add(`not an address ${i}`, `Broken ${i}`);
  for (let i = 1; i <= 20; i++) add(`x${i}@no-such-domain-${i}.test`, `Nowhere ${i}`);
  for (let i = 1; i <= 10; i++) add(`user${i}@accept.test`, `Again ${i}`);
  // Last, so every other row can be done while these wait for the gate.
  if (gated) for (let i = 1; i <= 10; i++) add(`user${i}@${GATE_DOMAIN}`, `Gated ${i}`);
  const csv = `name,email\n${rows.map((row) => `${row.name},${row.email}`).join('\n')}\n`;
  return { csv, rows: rows.length };
}

/** An account with something on every page: a key, verifications, a completed list. */
export interface PopulatedAccount {
  email: string;
  key: string;
  keyName: string;
  listId: string;
  listName: string;
  /** The Mailchimp accounts connected, when the server has an emulator; else null. */
  mailchimp: ConnectedMailchimp | null;
}

/**
 * Two Mailchimp accounts connected by populateAccount: one with audiences, a completed run, a
 * schedule and a draft campaign; one whose key was revoked since.
 */
export interface ConnectedMailchimp {
  /** The connected account's name, and the name of one of its audiences (the one run and scheduled). */
  connected: string;
  audience: string;
  /** A draft campaign to that audience, for the pre-campaign check. */
  campaignId: string;
  /** The account whose key Mailchimp refuses now: shown disconnected once the page asks for its audiences. */
  refused: string;
}

/** Connects two emulated Mailchimp accounts with `key` (see ConnectedMailchimp). */
async function connectMailchimp(
  url: string,
  key: string,
  emulator: MailchimpEmulator,
): Promise<ConnectedMailchimp> {
  const shop = emulator.addAccount({ name: 'Corner Shop' });
  const newsletter = emulator.addAudience(shop, { name: 'Newsletter' });
  for (let n = 1; n <= 3; n++) emulator.addMember(newsletter, { email: `reader${n}@example.com` });
  emulator.addAudience(shop, { name: 'Customers' });
  const old = emulator.addAccount({ name: 'Old Shop', dc: 'us6' });
  for (const account of [shop, old]) {
    const response = await keyFetch(url, key, '/integrations', {
      method: 'POST',
      body: JSON.stringify({ provider: 'mailchimp', api_key: account.apiKey }),
    });
    if (response.status !== 201)
      throw new Error(`connect ${account.name}: ${response.status} ${await response.text()}`);
  }
  const integrationId = await (async () => {
    const listed = (await (await keyFetch(url, key, '/integrations')).json()) as {
      integrations: Array<{ id: string; account_name: string }>;
    };
    return listed.integrations.find((each) => each.account_name === shop.name)!.id;
  })();
  const started = await keyFetch(url, key, `/integrations/${integrationId}/runs`, {
    method: 'POST',
    body: JSON.stringify({ audience_id: newsletter.id }),
  });
  const run = (await started.json()) as { id: string };
  if (started.status !== 202) throw new Error(`POST runs: ${started.status} ${JSON.stringify(run)}`);
  await waitUntil(async () => {
    const now = (await (
      await keyFetch(url, key, `/integrations/${integrationId}/runs/${run.id}`)
    ).json()) as {
      state: string;
    };
    return now.state === 'completed';
  }, 'the run to complete');
  const scheduled = await keyFetch(url, key, `/integrations/${integrationId}/schedules`, {
    method: 'POST',
    body: JSON.stringify({ audience_id: newsletter.id, cron: '0 3 * * 1', timezone: 'Europe/Paris' }),
  });
  if (scheduled.status !== 201)
    throw new Error(`POST schedules: ${scheduled.status} ${await scheduled.text()}`);
  const campaign = emulator.addCampaign(shop, { audience: newsletter, title: 'Spring sale' });
  emulator.revokeKey(old);
  return { connected: shop.name, audience: newsletter.name, campaignId: campaign.id, refused: old.name };
}

/**
 * Signs up in `page`, makes a key there, verifies a few addresses with it and runs a list of the
 * mail world to completion (through the API, with the key), then waits until the day's usage
 * figures (written once a second) show it, so the Overview's chart has data. With a Mailchimp
 * emulator, it also connects two accounts there (see ConnectedMailchimp).
 */
export async function populateAccount(
  page: Page,
  server: DashboardServer,
  names: { email?: string; keyName?: string; listName?: string } = {},
): Promise<PopulatedAccount> {
  const email = names.email ?? 'jane@example.com';
  const keyName = names.keyName ?? 'Website form';
  const listName = names.listName ?? 'Newsletter export';
  await signUpInBrowser(page, server.url, email, 'a long enough password');
  const key = await createKeyInBrowser(page, keyName);
  for (const address of [
    'alice@accept.test',
    'ghost@accept.test',
    'someone@catchall.test',
    'bob@gmial.com',
  ]) {
    const response = await keyFetch(server.url, key, '/verify', {
      method: 'POST',
      body: JSON.stringify({ email: address }),
    });
    if (response.status !== 200)
      throw new Error(`verify ${address}: ${response.status} ${await response.text()}`);
  }
  const created = await keyFetch(server.url, key, `/lists?name=${encodeURIComponent(listName)}`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: worldListCsv().csv,
  });
  const body = await created.text();
  if (created.status !== 202) throw new Error(`POST /lists: ${created.status} ${body}`);
  const listId = (JSON.parse(body) as { id: string }).id;
  await waitUntil(async () => {
    const list = (await (await keyFetch(server.url, key, `/lists/${listId}`)).json()) as { state: string };
    return list.state === 'completed';
  }, 'the list to complete');
  await waitUntil(async () => {
    const usage = (await (await keyFetch(server.url, key, '/usage')).json()) as {
      days: Array<{ total: number }>;
    };
    return usage.days.some((day) => day.total > 0);
  }, 'the day’s usage figures');
  const mailchimp =
    server.mailchimp === null ? null : await connectMailchimp(server.url, key, server.mailchimp);
  return { email, key, keyName, listId, listName, mailchimp };
}

/** Waits until no part of the page says it is still loading (lazy charts, data). */
export async function settled(page: Page): Promise<void> {
  await waitUntil(async () => (await page.getByText(/^Loading/).count()) === 0, 'the page to finish loading');
}

/** Opens every "Show the numbers" of the page's charts. */
export async function openNumbers(page: Page): Promise<void> {
  for (const summary of await page.getByText('Show the numbers', { exact: true }).all())
    await summary.click();
}

/** A page of the dashboard: how to open it (a full load) and wait until its content is there. */
export interface Screen {
  /** Short name, used in file names. */
  name: string;
  title: string;
  signedIn: boolean;
  open(page: Page, url: string, account: PopulatedAccount): Promise<void>;
}

/** Every page, signed out and signed in (with a populated account's content). */
export const SCREENS: readonly Screen[] = [
  {
    name: 'sign-in',
    title: 'sign in',
    signedIn: false,
    async open(page, url) {
      await page.goto(url);
      await heading(page, 'Sign in to Mailvet').waitFor();
    },
  },
  {
    name: 'sign-up',
    title: 'sign up',
    signedIn: false,
    async open(page, url) {
      await page.goto(`${url}/signup`);
      await heading(page, 'Create your Mailvet account').waitFor();
    },
  },
  {
    name: 'overview',
    title: 'overview',
    signedIn: true,
    async open(page, url, account) {
      await page.goto(url);
      await heading(page, 'Overview').waitFor();
      await page.getByRole('link', { name: account.listName }).waitFor();
      await settled(page);
    },
  },
  {
    name: 'verify',
    title: 'verify, with a result',
    signedIn: true,
    async open(page, url) {
      await page.goto(`${url}/verify`);
      await heading(page, 'Verify an address').waitFor();
      await page.getByLabel('Email address').fill(TYPO_ADDRESS);
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await page.getByRole('heading', { name: `Result for ${TYPO_ADDRESS}` }).waitFor();
    },
  },
  {
    name: 'lists',
    title: 'lists, with a list',
    signedIn: true,
    async open(page, url, account) {
      await page.goto(`${url}/lists`);
      await page
        .getByRole('article', { name: account.listName })
        .getByText('Completed', { exact: true })
        .waitFor();
      await settled(page);
    },
  },
  {
    name: 'list-detail',
    title: 'a list’s page',
    signedIn: true,
    async open(page, url, account) {
      await page.goto(`${url}/lists/${account.listId}`);
      await heading(page, account.listName).waitFor();
      await page.getByText(/^Scores of \d+ rows$/).waitFor();
      await settled(page);
    },
  },
  {
    name: 'keys',
    title: 'API keys, with a key',
    signedIn: true,
    async open(page, url, account) {
      await page.goto(`${url}/keys`);
      await page.getByRole('row', { name: new RegExp(account.keyName) }).waitFor();
    },
  },
  {
    name: 'integrations',
    title: 'integrations',
    signedIn: true,
    async open(page, url, account) {
      await page.goto(`${url}/integrations`);
      await heading(page, 'Integrations').waitFor();
      if (account.mailchimp !== null) {
        const { connected, audience, campaignId, refused } = account.mailchimp;
        const card = page.getByRole('article', { name: connected });
        const row = card
          .getByRole('region', { name: `Audiences of ${connected}` })
          .getByRole('row', { name: new RegExp(audience) });
        await row.waitFor();
        // Every control of the page shown: the run form, a finished run, a schedule, a check's answer.
        await card
          .getByRole('region', { name: 'Runs', exact: true })
          .getByText('Completed')
          .first()
          .waitFor();
        await card.getByRole('region', { name: 'Schedules', exact: true }).getByRole('row').nth(1).waitFor();
        await row.getByRole('button', { name: 'Validate now' }).click();
        await card.getByRole('region', { name: `Validate “${audience}”` }).waitFor();
        await card.getByRole('button', { name: 'New schedule' }).click();
        await card.getByRole('region', { name: 'New schedule' }).waitFor();
        await card.getByLabel('Draft campaign').selectOption(campaignId);
        await card.getByRole('button', { name: 'Check campaign' }).click();
        await card.getByRole('table', { name: 'Recipients by category' }).waitFor();
        await page
          .getByRole('article', { name: refused })
          .getByText('Disconnected', { exact: true })
          .waitFor();
      }
      await settled(page);
    },
  },
  {
    name: 'account',
    title: 'account',
    signedIn: true,
    async open(page, url) {
      await page.goto(`${url}/account`);
      await page.getByText('Requests per second').waitFor();
    },
  },
  {
    name: 'audit-log',
    title: 'audit log, with entries',
    signedIn: true,
    async open(page, url) {
      await page.goto(`${url}/audit`);
      await heading(page, 'Audit log').waitFor();
      await page.getByRole('row', { name: /API key created/ }).waitFor();
      await settled(page);
    },
  },
];

/** Gives `context` the session of `cookie` (`mailvet_session=…`) for the server at `url`. */
export async function addSessionCookie(context: BrowserContext, url: string, cookie: string): Promise<void> {
  const [name, value] = cookie.split('=', 2) as [string, string];
  await context.addCookies([{ name, value, url }]);
}

/** The few browser globals page functions here use: the tests compile without the DOM library. */
export interface PageGlobals {
  document: { activeElement: unknown; title: string };
  getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string; outlineColor: string };
  matchMedia(query: string): { matches: boolean };
  [marker: string]: unknown;
}
