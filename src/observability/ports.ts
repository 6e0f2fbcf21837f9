/**
 * The observability port: named recording methods the rest of the service calls, and the
 * exposition a `/metrics` endpoint serves. No module outside `adapters/metrics/` knows it is
 * Prometheus; with metrics off every method is a no-op (`noop.ts`). Label values handed in here
 * are always from bounded sets (route patterns, statuses, reasons, providers), never raw input.
 */

/** The DNS question a lookup asked. */
export type DnsQuestionType = 'mx' | 'a' | 'aaaa';

/** How a DNS query ended: an answer kind of the DnsAnswer port. */
export type DnsQueryOutcome = 'ok' | 'nxdomain' | 'nodata' | 'error';

/** Why a request was refused for the caller's limits (the API's error codes). */
export type RefusalKind =
  | 'rate_limited'
  | 'quota_exceeded'
  | 'bulk_quota_exceeded'
  | 'too_many_lists'
  | 'storage_limit_reached';

/** Jobs in this process's queue (BullMQ: the shared queue, the same figures from every process). */
export interface QueueDepth {
  waiting: number;
  active: number;
  /** Waiting for a retry's backoff or a deferral (a list waiting for its re-check). */
  delayed: number;
}

/** What the service records. Every method is cheap and never throws. */
export interface MetricsRecorder {
  /** True when something collects what is recorded (false for the no-op). */
  readonly enabled: boolean;
  /** One answered HTTP request: its route pattern (never the raw URL), status and duration. */
  httpRequest(method: string, route: string, statusCode: number, seconds: number): void;
  /** One verification performed (not served from the result cache). */
  verification(status: string, reason: string): void;
  /** One lookup in the result cache. */
  resultCacheLookup(hit: boolean): void;
  /** One query sent to the DNS servers (control queries of the health check included). */
  dnsQuery(question: DnsQuestionType, outcome: DnsQueryOutcome): void;
  /** One lookup in this process's DNS cache: answered from it (or a lookup in flight), or not. */
  dnsCacheLookup(question: DnsQuestionType, hit: boolean): void;
  /** An SMTP session opened (greeted and EHLO answered) at an MX host of `provider`. */
  smtpSessionOpened(provider: string): void;
  /** A connection attempt to an MX host of `provider` that gave no session, and why. */
  smtpConnectFailed(provider: string, reason: string): void;
  /** The decisive reply about one probed address, by its class (`2xx`, `4xx`, `5xx`). */
  smtpReply(provider: string, replyClass: string): void;
  /** List rows whose address got its final result. */
  listRowsProcessed(rows: number): void;
  /** A request refused for the caller's rate limit or quota. */
  refusal(kind: RefusalKind): void;
  /** Reads the job queue's depth at each scrape (the last source given wins). */
  queueDepthFrom(read: () => Promise<QueueDepth>): void;
}

/** What `/metrics` serves. */
export interface MetricsExposition {
  /** The Content-Type of `scrape()`'s text. */
  readonly contentType: string;
  /** Every metric of this process in the exposition format. */
  scrape(): Promise<string>;
}

/** Metrics switched on: recorded and served. */
export type Metrics = MetricsRecorder & MetricsExposition;
