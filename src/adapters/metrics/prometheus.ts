/**
 * The metrics port on prom-client: every family in a registry of its own (never the global one,
 * so two apps in one test process do not clash), Node's default metrics beside them. Loaded only
 * when metrics are on (the container imports this module dynamically).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type {
  DnsQueryOutcome,
  DnsQuestionType,
  Metrics,
  QueueDepth,
  RefusalKind,
} from '../../observability/ports.ts';

/** Bounds of the request latency histogram, seconds: cached answers in ms, SMTP probes in seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const REFUSAL_KINDS: readonly RefusalKind[] = [
  'rate_limited',
  'quota_exceeded',
  'bulk_quota_exceeded',
  'too_many_lists',
  'storage_limit_reached',
];
const DNS_QUESTIONS: readonly DnsQuestionType[] = ['mx', 'a', 'aaaa'];

/** Metrics kept by prom-client and served in Prometheus's text format. */
export class PrometheusMetrics implements Metrics {
  readonly enabled = true;
  readonly #registry = new Registry();
  readonly #httpRequests: Counter<'method' | 'route' | 'status_code'>;
  readonly #httpDuration: Histogram<'method' | 'route'>;
  readonly #verifications: Counter<'status' | 'reason'>;
  readonly #resultCacheHits: Counter;
  readonly #resultCacheMisses: Counter;
  readonly #dnsQueries: Counter<'question' | 'outcome'>;
  readonly #dnsCacheHits: Counter<'question'>;
  readonly #dnsCacheMisses: Counter<'question'>;
  readonly #smtpSessions: Counter<'provider'>;
  readonly #smtpConnectFailures: Counter<'provider' | 'reason'>;
  readonly #smtpReplies: Counter<'provider' | 'class'>;
  readonly #listRows: Counter;
  readonly #refusals: Counter<'kind'>;
  #readQueueDepth: (() => Promise<QueueDepth>) | undefined;

  constructor() {
    const registers = [this.#registry];
    this.#httpRequests = new Counter({
      name: 'mailvet_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    this.#httpDuration = new Histogram({
      name: 'mailvet_http_request_duration_seconds',
      help: 'Time from a request received to its response sent, by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#verifications = new Counter({
      name: 'mailvet_verifications_total',
      help: 'Verifications performed (results served from the result cache not included), by status and reason',
      labelNames: ['status', 'reason'],
      registers,
    });
    this.#resultCacheHits = new Counter({
      name: 'mailvet_result_cache_hits_total',
      help: 'Result cache lookups answered from the cache',
      registers,
    });
    this.#resultCacheMisses = new Counter({
      name: 'mailvet_result_cache_misses_total',
      help: 'Result cache lookups that found nothing (a verification follows)',
      registers,
    });
    this.#dnsQueries = new Counter({
      name: 'mailvet_dns_queries_total',
      help: 'DNS queries sent to the resolvers, by question type and outcome',
      labelNames: ['question', 'outcome'],
      registers,
    });
    this.#dnsCacheHits = new Counter({
      name: 'mailvet_dns_cache_hits_total',
      help: "DNS lookups answered from this process's cache (or joined to one in flight), by question type",
      labelNames: ['question'],
      registers,
    });
    this.#dnsCacheMisses = new Counter({
      name: 'mailvet_dns_cache_misses_total',
      help: "DNS lookups this process's cache could not answer, by question type",
      labelNames: ['question'],
      registers,
    });
    this.#smtpSessions = new Counter({
      name: 'mailvet_smtp_sessions_opened_total',
      help: "SMTP probe sessions opened, by the MX host's provider",
      labelNames: ['provider'],
      registers,
    });
    this.#smtpConnectFailures = new Counter({
      name: 'mailvet_smtp_connect_failures_total',
      help: "SMTP connection attempts that gave no session, by the MX host's provider and reason",
      labelNames: ['provider', 'reason'],
      registers,
    });
    this.#smtpReplies = new Counter({
      name: 'mailvet_smtp_replies_total',
      help: "Decisive SMTP replies about probed addresses, by the MX host's provider and reply class",
      labelNames: ['provider', 'class'],
      registers,
    });
    this.#listRows = new Counter({
      name: 'mailvet_list_rows_processed_total',
      help: 'List rows whose address got its final result',
      registers,
    });
    this.#refusals = new Counter({
      name: 'mailvet_limit_refusals_total',
      help: 'Requests refused for the caller’s rate limit or quota, by kind',
      labelNames: ['kind'],
      registers,
    });
    const metrics = this;
    new Gauge({
      name: 'mailvet_queue_jobs',
      help: 'Jobs in the job queue, by state, read at scrape time',
      labelNames: ['state'],
      registers,
      async collect() {
        this.reset();
        const read = metrics.#readQueueDepth;
        if (read === undefined) return;
        // A queue that cannot say (Redis away) shows no figures rather than stale ones.
        const depth = await read().catch(() => undefined);
        if (depth === undefined) return;
        this.set({ state: 'waiting' }, depth.waiting);
        this.set({ state: 'active' }, depth.active);
        this.set({ state: 'delayed' }, depth.delayed);
      },
    });
    // Zeros for the bounded label sets, so rate() sees a series before its first event.
    for (const kind of REFUSAL_KINDS) this.#refusals.inc({ kind }, 0);
    for (const question of DNS_QUESTIONS) {
      this.#dnsCacheHits.inc({ question }, 0);
      this.#dnsCacheMisses.inc({ question }, 0);
    }
    collectDefaultMetrics({ register: this.#registry });
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  /** Every metric in Prometheus's text format. */
  scrape(): Promise<string> {
    return this.#registry.metrics();
  }

  httpRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.#httpRequests.inc({ method, route, status_code: statusCode });
    this.#httpDuration.observe({ method, route }, seconds);
  }

  verification(status: string, reason: string): void {
    this.#verifications.inc({ status, reason });
  }

  resultCacheLookup(hit: boolean): void {
    (hit ? this.#resultCacheHits : this.#resultCacheMisses).inc();
  }

  dnsQuery(question: DnsQuestionType, outcome: DnsQueryOutcome): void {
    this.#dnsQueries.inc({ question, outcome });
  }

  dnsCacheLookup(question: DnsQuestionType, hit: boolean): void {
    (hit ? this.#dnsCacheHits : this.#dnsCacheMisses).inc({ question });
  }

  smtpSessionOpened(provider: string): void {
    this.#smtpSessions.inc({ provider });
  }

  smtpConnectFailed(provider: string, reason: string): void {
    this.#smtpConnectFailures.inc({ provider, reason });
  }

  smtpReply(provider: string, replyClass: string): void {
    this.#smtpReplies.inc({ provider, class: replyClass });
  }

  listRowsProcessed(rows: number): void {
    if (rows > 0) this.#listRows.inc(rows);
  }

  refusal(kind: RefusalKind): void {
    this.#refusals.inc({ kind });
  }

  queueDepthFrom(read: () => Promise<QueueDepth>): void {
    this.#readQueueDepth = read;
  }
}
