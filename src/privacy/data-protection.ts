/**
 * What the API and the command line need of data protection: the erasure service and the server's
 * default retention (MAILVET_RETENTION_DAYS), wired once by the composition root.
 */
import type { ErasureService } from './erasure.ts';

export interface DataProtection {
  erasure: ErasureService;
  /** Days a finished list's results are kept when its account set none (0: kept). */
  defaultRetentionDays: number;
}
