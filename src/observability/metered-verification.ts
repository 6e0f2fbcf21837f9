/**
 * Decorators that count verification outcomes for the metrics, wired by the composition root
 * around the service's parts: the verifier (each verification performed, by status and reason),
 * the result cache (hits and misses) and the SMTP prober (the decisive reply per probed address,
 * by the MX host's provider), and the daily figures (list rows given their final result).
 */
import type { DailyUsageRecorder } from '../usage/daily-usage.ts';
import type { ResultCache } from '../usage/ports.ts';
import type { Verifier } from '../verification/pipeline.ts';
import type { MailboxProber, ProbeRequest, VerifyContext } from '../verification/ports.ts';
import type { SmtpCheck, VerificationResult } from '../verification/report.ts';
import { mxProvider } from './mx-provider.ts';
import type { MetricsRecorder } from './ports.ts';

/** The verifier, each result counted by status and reason. */
export function meteredVerifier(
  verifier: Pick<Verifier, 'verify'>,
  metrics: MetricsRecorder,
): Pick<Verifier, 'verify'> {
  return {
    async verify(raw: string, context?: VerifyContext): Promise<VerificationResult> {
      const result = await verifier.verify(raw, context);
      metrics.verification(result.status, result.reason);
      return result;
    },
  };
}

/** The result cache, each lookup counted as a hit or a miss. */
export function meteredResultCache(cache: ResultCache, metrics: MetricsRecorder): ResultCache {
  return {
    async get(address: string): Promise<VerificationResult | undefined> {
      const found = await cache.get(address);
      metrics.resultCacheLookup(found !== undefined);
      return found;
    },
    set: (address, result, ttlSeconds) => cache.set(address, result, ttlSeconds),
    delete: (address) => cache.delete(address),
  };
}

/** The prober, the reply that decided each probe counted by provider and class. */
export function meteredProber(prober: MailboxProber, metrics: MetricsRecorder): MailboxProber {
  return {
    async probe(request: ProbeRequest): Promise<SmtpCheck> {
      const check = await prober.probe(request);
      if (check.reply !== null) {
        metrics.smtpReply(mxProvider(check.mxHost), `${Math.floor(check.reply.code / 100)}xx`);
      }
      return check;
    },
  };
}

/** The daily figures' recorder, the list rows it is told of counted too. */
export function meteredDailyUsage(
  daily: Pick<DailyUsageRecorder, 'record'>,
  metrics: MetricsRecorder,
): Pick<DailyUsageRecorder, 'record'> {
  return {
    record(owner, metric, count, at): void {
      if (metric === 'list_rows') metrics.listRowsProcessed(count);
      daily.record(owner, metric, count, at);
    },
  };
}

/** Session events of the SMTP prober, counted by the MX host's provider. */
export function meteredSessionEvents(metrics: MetricsRecorder): {
  opened(mxHost: string): void;
  failed(mxHost: string, reason: string): void;
} {
  return {
    opened: (mxHost) => metrics.smtpSessionOpened(mxProvider(mxHost)),
    failed: (mxHost, reason) => metrics.smtpConnectFailed(mxProvider(mxHost), reason),
  };
}
