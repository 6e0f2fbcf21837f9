/**
 * The recorder used when metrics are off (neither MAILVET_METRICS_PORT nor MAILVET_METRICS_TOKEN):
 * every call does nothing, and prom-client is never loaded.
 */
import type { MetricsRecorder } from './ports.ts';

const nothing = (): void => {};

/** Records nothing. */
export const NO_METRICS: MetricsRecorder = {
  enabled: false,
  httpRequest: nothing,
  verification: nothing,
  resultCacheLookup: nothing,
  dnsQuery: nothing,
  dnsCacheLookup: nothing,
  smtpSessionOpened: nothing,
  smtpConnectFailed: nothing,
  smtpReply: nothing,
  listRowsProcessed: nothing,
  refusal: nothing,
  queueDepthFrom: nothing,
};
