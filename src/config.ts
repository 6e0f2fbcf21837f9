/**
 * Configuration: parsed once at start-up from the environment by one schema.
 * Each key is documented beside its parser; README's configuration table mirrors this file.
 */
import * as z from 'zod/mini';
import './zod-messages.ts';

/** `schema`, then `transform` of its output. */
const andThen = <S extends z.ZodMiniType, O>(
  schema: S,
  transform: (value: z.output<S>, ctx: z.core.ParsePayload) => O,
) => z.pipe(schema, z.transform(transform));

/** Records why the value is refused; the transform then returns `z.NEVER`. */
function refuse(ctx: z.core.ParsePayload, message: string): void {
  ctx.issues.push({ code: 'custom', message, input: ctx.value });
}

const booleanFlag = (fallback: boolean) =>
  andThen(z.optional(z.enum(['true', 'false', '1', '0', 'yes', 'no', ''])), (value) =>
    value === undefined || value === '' ? fallback : ['true', '1', 'yes'].includes(value),
  );

const integer = (fallback: number, min: number, max: number) =>
  andThen(z.optional(z.string()), (value, ctx) => {
    if (value === undefined || value.trim() === '') return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      refuse(ctx, `must be an integer from ${min} to ${max}`);
      return z.NEVER;
    }
    return parsed;
  });

const optionalText = andThen(z.optional(z.string()), (value) =>
  value === undefined || value.trim() === '' ? undefined : value.trim(),
);

/** `host[:port]` entries, comma-separated; IPv6 as `[::1]:53`. */
const dnsServers = andThen(z.optional(z.string()), (value) =>
  (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0),
);

/** Comma-separated names, lower-cased; unset means `fallback`, set but empty means none. */
const nameList = (fallback: readonly string[]) =>
  andThen(z.optional(z.string()), (value) =>
    value === undefined
      ? [...fallback]
      : value
          .split(',')
          .map((entry) => entry.trim().toLowerCase())
          .filter((entry) => entry.length > 0),
  );

/** One SOCKS5 egress of the SMTP probe (an entry of MAILVET_SMTP_PROXY). */
export interface SmtpProxy {
  host: string;
  port: number;
  /** RFC 1929 credentials, both or neither. */
  user?: string;
  password?: string;
  /** EHLO name of probes through this proxy (its exit address's name); MAILVET_SMTP_HELO when unset. */
  helo?: string;
}

const HELO_NAME =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[(?:IPv6:)?[0-9A-Fa-f:.]+\])$/;

/**
 * `socks5://[user:pass@]host:port[#helo=name]` entries, comma-separated. A bad entry is named by
 * its number and its text with the password masked: start-up errors end up in logs.
 */
const smtpProxies = andThen(z.optional(z.string()), (value, ctx) => {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  const proxies: SmtpProxy[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const parsed = parseSmtpProxy(entry);
    const key = typeof parsed === 'string' ? '' : `${parsed.user ?? ''}@${parsed.host}:${parsed.port}`;
    const problem = typeof parsed === 'string' ? parsed : seen.has(key) ? 'listed twice' : null;
    if (problem !== null) {
      refuse(ctx, `entry ${index + 1} (${maskPassword(entry)}): ${problem}`);
    } else if (typeof parsed !== 'string') {
      seen.add(key);
      proxies.push(parsed);
    }
  });
  return proxies;
});

/** One proxy entry, or what is wrong with it (never quoting it). */
function parseSmtpProxy(entry: string): SmtpProxy | string {
  const shape = 'socks5://[user:pass@]host:port[#helo=name]';
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `not a URL of the form ${shape}`;
  }
  // socks5h would have the proxy resolve names; the probe resolves MX hosts itself (the SSRF guard).
  if (url.protocol !== 'socks5:') return `must start with socks5:// (${shape})`;
  if (url.hostname === '' || url.port === '' || url.port === '0') return `needs a host and a port (${shape})`;
  if (url.pathname.replace(/^\/$/, '') !== '' || url.search !== '') return `has a path or query (${shape})`;
  const credentials = credentialsOf(url);
  if (typeof credentials === 'string') return credentials;
  const { user, password } = credentials;
  if (Buffer.byteLength(user) > 255 || Buffer.byteLength(password) > 255)
    return 'user and password may have at most 255 bytes each (RFC 1929)';
  const fragment = url.hash.slice(1);
  const helo = /^helo=(.+)$/.exec(fragment)?.[1];
  if (fragment !== '' && (helo === undefined || !HELO_NAME.test(helo)))
    return 'the fragment must be #helo=<host name>, such as #helo=mx1.example.com';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port),
    ...(user !== '' && { user, password }),
    ...(helo !== undefined && { helo }),
  };
}

/** The entry with whatever stands between `user:` and the last `@` masked. */
function maskPassword(entry: string): string {
  const at = entry.lastIndexOf('@');
  if (at < 0) return entry;
  const scheme = entry.indexOf('://');
  const start = scheme < 0 || scheme > at ? 0 : scheme + 3;
  const userinfo = entry.slice(start, at);
  const colon = userinfo.indexOf(':');
  if (colon < 0) return entry;
  return `${entry.slice(0, start)}${userinfo.slice(0, colon)}:***${entry.slice(at)}`;
}

/** The operator's mail relay (MAILVET_MAIL_URL): account confirmations and password resets go through it. */
export interface MailRelay {
  host: string;
  port: number;
  /**
   * `starttls` (smtp://): STARTTLS is required before AUTH and the message; `implicit` (smtps://):
   * TLS from the first byte; `none` (smtp://…?tls=none): plain text, a relay on this machine only.
   */
  tls: 'starttls' | 'implicit' | 'none';
  /** SMTP AUTH credentials, both or neither. */
  user?: string;
  password?: string;
}

/**
 * `smtp://[user:pass@]host[:port]` (STARTTLS required; port 587 by default), `smtps://…` (TLS from
 * the start; 465), `smtp://…?tls=none` (plain text: loopback only). Problems never quote the URL:
 * its password would end up in logs.
 */
const mailRelay = andThen(optionalText, (value, ctx) => {
  if (value === undefined) return undefined;
  const parsed = parseMailRelay(value);
  if (typeof parsed !== 'string') return parsed;
  refuse(ctx, parsed);
  return z.NEVER;
});

/** The relay of a MAILVET_MAIL_URL, or what is wrong with it (never quoting it). */
function parseMailRelay(value: string): MailRelay | string {
  const shape = 'smtp://user:pass@host:port (STARTTLS) or smtps://user:pass@host:port (TLS)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `not a URL of the form ${shape}`;
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return `must be ${shape}`;
  if (url.hostname === '') return `needs a host (${shape})`;
  if (url.port === '0') return `needs a port from 1 to 65535 (${shape})`;
  if (url.pathname.replace(/^\/$/, '') !== '' || url.hash !== '') return `has a path or fragment (${shape})`;
  const params = [...url.searchParams];
  const plain = params.length === 1 && params[0]![0] === 'tls' && params[0]![1] === 'none';
  if (params.length > 0 && !plain)
    return 'takes no query but ?tls=none (plain text, a relay on this machine only)';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (plain && url.protocol === 'smtps:') return '?tls=none is for smtp:// (smtps:// is TLS from the start)';
  // Plain text would carry the relay's password and every reset link across the network.
  if (plain && !isLoopbackHost(host))
    return '?tls=none (plain text) is for a relay on this machine only (localhost, 127.0.0.1, ::1): use smtp:// with STARTTLS or smtps://';
  const credentials = credentialsOf(url);
  if (typeof credentials === 'string') return credentials;
  const { user, password } = credentials;
  const tls = plain ? 'none' : url.protocol === 'smtps:' ? 'implicit' : 'starttls';
  return {
    host,
    port: url.port === '' ? (tls === 'implicit' ? 465 : 587) : Number(url.port),
    tls,
    ...(user !== '' && { user, password }),
  };
}

/** `localhost`, 127.0.0.0/8 or ::1: a name or address that never leaves this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/** `Name <address>` or a bare address, on one line (it becomes the From header). */
const MAIL_FROM = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

const envSchema = z.object({
  /** Listen port of the HTTP API and dashboard. */
  PORT: integer(8080, 0, 65535),
  /** Listen address. */
  HOST: andThen(optionalText, (value) => value ?? '0.0.0.0'),
  /** Open sockets in all; Node drops new ones past it. */
  MAILVET_MAX_CONNECTIONS: integer(10_000, 1, 1_000_000),
  /** Open sockets from one client address (behind a proxy: the proxy's; limit clients there). */
  MAILVET_MAX_CONNECTIONS_PER_CLIENT: integer(256, 1, 1_000_000),
  /** A socket must send a whole request head within this, ms (idle sockets are closed). */
  MAILVET_HEADERS_TIMEOUT_MS: integer(10_000, 100, 600_000),
  /**
   * A list upload is refused (408) when its body stops arriving for this long, ms. Uploads have no
   * deadline as a whole (512 MB may take minutes); every other request must arrive within 30 s.
   */
  MAILVET_UPLOAD_IDLE_TIMEOUT_MS: integer(30_000, 100, 600_000),
  /** A list upload that takes longer than this in all is refused (408), ms. */
  MAILVET_UPLOAD_TIMEOUT_MS: integer(3_600_000, 1_000, 86_400_000),
  /** An idle keep-alive socket is closed after this, ms. */
  MAILVET_KEEP_ALIVE_TIMEOUT_MS: integer(5_000, 100, 600_000),
  /** SQLite file and local state in embedded mode. */
  MAILVET_DATA_DIR: andThen(optionalText, (value) => value ?? './data'),
  /** PostgreSQL URL: switches the store to PostgreSQL (scale-out). */
  DATABASE_URL: optionalText,
  /** Redis URL: switches rate limits, caches and the queue to Redis (scale-out). */
  REDIS_URL: optionalText,
  /**
   * How long a request-path Redis command (rate limit, cache) may take before that request falls
   * back to this process's memory, ms.
   */
  MAILVET_REDIS_TIMEOUT_MS: integer(150, 10, 10_000),
  /** 32 bytes as 64 hex digits; generated into the data dir in embedded mode when unset. */
  MAILVET_SECRET_KEY: optionalText.check(
    z.refine((value) => value === undefined || /^[0-9a-fA-F]{64}$/.test(value), {
      message: 'must be 64 hex digits (32 bytes)',
    }),
  ),
  /** JSON file of plans; built-in plans when unset. */
  MAILVET_PLANS: optionalText,
  /**
   * The plan new accounts get: sign-up, and `accounts create` or `keys create` without --plan. Its
   * name is checked here, and at start against the plans in force (built-in or MAILVET_PLANS).
   */
  MAILVET_DEFAULT_PLAN: andThen(optionalText, (value) => value ?? 'free').check(
    z.refine((value) => /^[a-z0-9_-]{1,40}$/.test(value), {
      message: 'must be a plan name: 1-40 of a-z 0-9 _ -',
    }),
  ),
  /** DNS servers, comma-separated `host[:port]`; the system's resolvers when unset. */
  MAILVET_DNS_SERVERS: dnsServers,
  /** Probe mailboxes over SMTP. */
  MAILVET_SMTP_PROBE: booleanFlag(true),
  /** Port used for MX hosts. */
  MAILVET_SMTP_PORT: integer(25, 1, 65535),
  /** Name given in EHLO; the host name when unset. */
  MAILVET_SMTP_HELO: optionalText,
  /** Envelope sender of the probe; `verify@<helo>` when unset. */
  MAILVET_SMTP_FROM: optionalText,
  /** Allow MX addresses in private/loopback ranges (tests only). */
  MAILVET_SMTP_ALLOW_PRIVATE: booleanFlag(false),
  /**
   * SOCKS5 egress of the probe, comma-separated `socks5://[user:pass@]host:port[#helo=name]`: each
   * probed domain always goes through the same one; the proxy is given MX addresses, never names.
   */
  MAILVET_SMTP_PROXY: smtpProxies,
  /** Connect timeout of the probe, ms. */
  MAILVET_SMTP_CONNECT_TIMEOUT_MS: integer(5000, 1, 600_000),
  /** Per-command timeout of the probe, ms. */
  MAILVET_SMTP_TIMEOUT_MS: integer(10000, 1, 600_000),
  /** The most one mailbox probe may take, whatever the server does, ms. */
  MAILVET_SMTP_PROBE_TIMEOUT_MS: integer(15000, 1, 600_000),
  /** Result cache lifetime, seconds (0 turns it off). */
  MAILVET_RESULT_TTL: integer(86400, 0, 31_536_000),
  /** The most an inconclusive probe result (timeout, connect_failed, greylisted, blocked, TLS, protocol) is cached, seconds. */
  MAILVET_INCONCLUSIVE_RESULT_TTL: integer(300, 0, 86_400),
  /** Open probe sessions in all, per process. */
  MAILVET_SMTP_MAX_SESSIONS: integer(200, 1, 100_000),
  /**
   * Probe sessions one account may hold at once per process: its fair share of them. A session asks
   * many of one domain's addresses, so this bounds an account's hold on mail servers, not its
   * throughput. (The name is kept from when it counted probes.)
   */
  MAILVET_SMTP_ACCOUNT_PROBES: integer(50, 1, 100_000),
  /** MX hosts tried per probe session, best preference first. */
  MAILVET_SMTP_MX_HOSTS: integer(3, 1, 20),
  /** Addresses tried per MX host. */
  MAILVET_SMTP_ADDRESSES_PER_HOST: integer(2, 1, 20),
  /** The longest wait for a session slot at one MX address before the next is tried, ms. */
  MAILVET_SMTP_HOST_WAIT_MS: integer(3000, 0, 600_000),
  /** How long a list's probe session with nothing to ask waits for the list's next addresses, ms. */
  MAILVET_SMTP_SESSION_LINGER_MS: integer(100, 0, 10_000),
  /** New SMTP connections per second to one destination address (burst twice that), all processes. */
  MAILVET_SMTP_CONNECTIONS_PER_ADDRESS: integer(10, 1, 100_000),
  /** New SMTP connections per second for one probed domain (burst twice that), all processes. */
  MAILVET_SMTP_CONNECTIONS_PER_DOMAIN: integer(10, 1, 100_000),
  /** New SMTP connections per second on one account's behalf (burst twice that), all processes. */
  MAILVET_SMTP_CONNECTIONS_PER_ACCOUNT: integer(50, 1, 100_000),
  /** How long an address that refused a connection is not tried again, ms. */
  MAILVET_SMTP_REFUSED_HOLD_MS: integer(60_000, 0, 86_400_000),
  /**
   * Mailchimp's API base, `{dc}` replaced by the account's data centre; `/3.0/…` is appended (tests
   * and the local demo point it at the emulator).
   */
  MAILVET_MAILCHIMP_BASE_URL: andThen(
    optionalText,
    (value) => value ?? 'https://{dc}.api.mailchimp.com',
  ).check(
    z.refine((value) => value.includes('{dc}') && isHttpUrl(value.replace('{dc}', 'us1')), {
      message: 'must be an http(s) URL with {dc} in it, such as https://{dc}.api.mailchimp.com',
    }),
  ),
  /** Mailchimp's OAuth endpoints' base (`/oauth2/authorize`, `/oauth2/token`, `/oauth2/metadata`). */
  MAILVET_MAILCHIMP_LOGIN_URL: httpUrl('https://login.mailchimp.com'),
  /** The registered OAuth app of this service: both set enable "Connect Mailchimp" by OAuth. */
  MAILVET_MAILCHIMP_CLIENT_ID: optionalText,
  MAILVET_MAILCHIMP_CLIENT_SECRET: optionalText,
  /** HubSpot's API base (`/crm/v3/…`, `/oauth/v3/token`); tests and the demo point it at the emulator. */
  MAILVET_HUBSPOT_BASE_URL: httpUrl('https://api.hubapi.com'),
  /** Where HubSpot's consent page is (`/oauth/authorize`). */
  MAILVET_HUBSPOT_LOGIN_URL: httpUrl('https://app.hubspot.com'),
  /** The registered HubSpot app of this service: both set enable "Connect HubSpot" by OAuth and its webhooks. */
  MAILVET_HUBSPOT_CLIENT_ID: optionalText,
  MAILVET_HUBSPOT_CLIENT_SECRET: optionalText,
  /** Requests to one portal in any 10 seconds, all processes (HubSpot: 100; some private apps 190). */
  MAILVET_HUBSPOT_REQUESTS_PER_10S: integer(100, 1, 1000),
  /** How often a watch on a private-app HubSpot connection looks for new contacts, seconds. */
  MAILVET_HUBSPOT_POLL_SECONDS: integer(60, 1, 3600),
  /** Operator file of domains never reported disposable (one per line, `#` comments). */
  MAILVET_DISPOSABLE_ALLOW_FILE: optionalText,
  /** Operator file of domains always reported disposable. */
  MAILVET_DISPOSABLE_DENY_FILE: optionalText,
  /** Wait before a greylisted address in a list job is checked again, ms (3 tries in all). */
  MAILVET_LIST_RECHECK_MS: integer(300_000, 0, 86_400_000),
  /** List jobs one worker process works on at once. */
  MAILVET_WORKER_CONCURRENCY: integer(2, 1, 64),
  /**
   * Days a finished list's rows and results are kept when its account set none (0 keeps them);
   * a plan's `retention_days` caps it.
   */
  MAILVET_RETENTION_DAYS: integer(30, 0, 36_500),
  /** How often a worker looks for lists to (re)start: lost queue messages, quota back after a pause, ms. */
  MAILVET_LIST_SWEEP_MS: integer(30_000, 100, 3_600_000),
  /** How often a Mailchimp run looks at its list's progress and at its write batches, ms. */
  MAILVET_RUN_POLL_MS: integer(5_000, 50, 600_000),
  /**
   * The most sender feedback events (bounces, deliveries, complaints) any account may keep stored,
   * whatever its plan says (each plan has its own figure, `max_feedback_events`); past it, 413.
   */
  MAILVET_FEEDBACK_MAX_EVENTS: integer(1_000_000, 1, 1_000_000_000),
  /**
   * Feedback requests (single or bulk) one account may send a second, with a burst of twice that;
   * past it, 429. A bulk request may carry 10,000 events: this paces how fast an account writes.
   */
  MAILVET_FEEDBACK_REQUESTS_PER_SECOND: integer(1, 1, 10_000),
  /** Scale-out: how long a worker's hold on a list job lasts without renewal (a killed worker's job is taken over after it), ms. */
  MAILVET_JOB_LOCK_MS: integer(30_000, 1_000, 600_000),
  /** Wait before the second webhook attempt, ms; each later wait is 4 times longer. */
  MAILVET_WEBHOOK_RETRY_MS: integer(60_000, 1, 86_400_000),
  /** Allow webhook URLs that resolve to private/loopback addresses (tests only). */
  MAILVET_WEBHOOK_ALLOW_PRIVATE: booleanFlag(false),
  /** DNS query timeout, ms, and tries per query. */
  MAILVET_DNS_TIMEOUT_MS: integer(2000, 1, 60_000),
  MAILVET_DNS_TRIES: integer(2, 1, 10),
  /** Names whose MX must exist: when the resolver cannot find them, its failures are ours (dns_error, refunded, never INVALID_DOMAIN); empty turns the check off. */
  MAILVET_DNS_CONTROL_NAMES: nameList(['gmail.com', 'outlook.com', 'yahoo.com']),
  /** How long the resolver's health (the control queries' verdict) is trusted, seconds. */
  MAILVET_DNS_CONTROL_TTL: integer(30, 1, 3600),
  /** DNS blocklist zones asked about our egress address (`mailvet doctor`, sender-domain checks); empty turns them off. */
  MAILVET_DNSBL_ZONES: nameList(['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org']),
  /** Domain blocklist zones (DBL style: `<domain>.<zone>`) the sender-domain check asks about the domain; empty turns them off. */
  MAILVET_DNSBL_DOMAIN_ZONES: nameList(['dbl.spamhaus.org', 'multi.uribl.com']),
  /** How long a sender-domain report is reused for the same domain and selectors, seconds (0 turns it off). */
  MAILVET_DOMAIN_CHECK_TTL: integer(300, 0, 86_400),
  /** Sender-domain checks one account may run at once, per process; more are refused (429) until one ends. */
  MAILVET_DOMAIN_CHECKS_PER_ACCOUNT: integer(2, 1, 100),
  /** Allow MTA-STS policy hosts (`mta-sts.<domain>`) that resolve to private/loopback addresses (tests only). */
  MAILVET_MTA_STS_ALLOW_PRIVATE: booleanFlag(false),
  /** Mail hosts `mailvet doctor` tests port 25 egress against, comma-separated `host[:port]` (port: MAILVET_SMTP_PORT). */
  MAILVET_DOCTOR_MX_HOSTS: nameList([
    'gmail-smtp-in.l.google.com',
    'outlook-com.olc.protection.outlook.com',
    'mta5.am0.yahoodns.net',
  ]),
  /** The public address probes leave from, when mail servers do not echo it (behind NAT); learned when unset. */
  MAILVET_EGRESS_IP: optionalText,
  /**
   * Retired: it named operators by sign-in email, which open sign-up never confirmed. Read only by
   * the upgrade that marks those users operators once (migration 0015); after it, it grants
   * nothing (a start with it set says so). Operators are marked with `mailvet users update --operator`.
   */
  MAILVET_OPERATORS: nameList([]),
  /**
   * Where users and webhooks reach the service: the session cookie is `Secure` when it is https,
   * and it is the origin unsafe requests with a session must come from. `http://localhost:$PORT`
   * when unset.
   */
  MAILVET_PUBLIC_URL: optionalText.check(
    z.refine((value) => value === undefined || isHttpUrl(value), {
      message: 'must be an http(s) URL such as https://verify.example.com',
    }),
  ),
  /** `open`: anyone may sign up in the dashboard; `closed`: users are made with `mailvet users create`. */
  MAILVET_SIGNUP: z._default(z.enum(['open', 'closed']), 'open'),
  /**
   * New accounts a day the dashboard's sign-up makes, all clients and processes together: that many
   * in a row, then refilled evenly through the day; past it, 429. Bounds the free quota an abuser
   * can mint by signing up again and again.
   */
  MAILVET_SIGNUP_DAILY_MAX: integer(1000, 1, 1_000_000),
  /**
   * The operator's mail relay for account mail (address confirmation, password reset). Set, a
   * sign-up must confirm its address before it verifies anything, and passwords can be reset; unset,
   * neither (sign-ups are confirmed at once). See MailRelay for the forms.
   */
  MAILVET_MAIL_URL: mailRelay,
  /** The From of account mail, `Mailvet <no-reply@example.com>` or a bare address; required with MAILVET_MAIL_URL. */
  MAILVET_MAIL_FROM: optionalText.check(
    z.refine((value) => value === undefined || MAIL_FROM.test(value), {
      message: 'must be an address such as no-reply@example.com or Mailvet <no-reply@example.com>',
    }),
  ),
  /** Prometheus `/metrics` on a listener of its own at HOST:this port (0: any free one); unset: none. */
  MAILVET_METRICS_PORT: andThen(optionalText, (value, ctx) => {
    if (value === undefined) return undefined;
    const port = Number(value);
    if (Number.isInteger(port) && port >= 0 && port <= 65535) return port;
    refuse(ctx, 'must be an integer from 0 to 65535');
    return z.NEVER;
  }),
  /**
   * `/metrics` on the API port, to `Authorization: Bearer <this>`; the metrics port asks for it too
   * when both are set. Metrics are off (prom-client never loaded) when neither is set.
   */
  MAILVET_METRICS_TOKEN: optionalText,
  /** pino log level of the process: fatal, error, warn, info, debug, trace or silent. */
  MAILVET_LOG_LEVEL: z._default(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    'info',
  ),
});

/** What no single key can say: MAILVET_MAIL_URL needs a From. */
const checkedEnvSchema = envSchema.check(
  z.superRefine((env, ctx) => {
    if (env.MAILVET_MAIL_URL !== undefined && env.MAILVET_MAIL_FROM === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['MAILVET_MAIL_FROM'],
        message: 'is required with MAILVET_MAIL_URL: the From of account mail, such as no-reply@example.com',
      });
    }
  }),
);

/** An http(s) URL, `fallback` when unset. */
function httpUrl(fallback: string) {
  return andThen(optionalText, (value) => value ?? fallback).check(
    z.refine(isHttpUrl, { message: `must be an http(s) URL such as ${fallback}` }),
  );
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** MAILVET_PUBLIC_URL's origin, or the local one of PORT. */
export function publicOrigin(config: Pick<Config, 'MAILVET_PUBLIC_URL' | 'PORT'>): string {
  return new URL(config.MAILVET_PUBLIC_URL ?? `http://localhost:${config.PORT}`).origin;
}

/** The parsed configuration. */
export type Config = z.output<typeof envSchema>;

/** A configuration problem, named by variable, for a clear start-up message. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = checkedEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return parsed.data;
}

/** A URL's user and password, decoded: both or neither; or what is wrong with them. */
function credentialsOf(url: URL): { user: string; password: string } | string {
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    return 'user or password is badly percent-encoded';
  }
  if ((user === '') !== (password === '')) return 'needs both a user and a password, or neither';
  return { user, password };
}
