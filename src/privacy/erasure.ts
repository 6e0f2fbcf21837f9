/**
 * Erasure: one address removed from everything an account holds, matched as the verifier
 * normalises it (NFC local part, ASCII lower-case domain, whatever case the domain was given in):
 * its rows in the account's lists (blanked, still counted), their results, its feedback events,
 * the account's cached context at its domain, and the shared result cache's entry. Each store
 * statement is idempotent: erasing twice gives zeros the second time. The audit log names the
 * address by its keyed hash only.
 */
import type { AuditTrail } from '../audit/audit-trail.ts';
import type { Initiator } from '../audit/ports.ts';
import { feedbackAddressOf } from '../feedback/feedback-address.ts';
import type { ResultCache } from '../usage/ports.ts';
import { addressKey, domainOfKey } from '../usage/verification-service.ts';
import { erasedAddressId } from './erased-address-id.ts';
import type { ErasureStore } from './ports.ts';

/** What one erasure removed, as `DELETE /api/v1/addresses/{email}` answers it. */
export interface ErasureCounts {
  /** List rows blanked (across the account's lists). */
  list_rows: number;
  /** Feedback events deleted. */
  feedback: number;
  /** Cache entries forgotten (the shared result cache's). */
  cached: number;
}

export interface ErasureDeps {
  store: ErasureStore;
  cache: Pick<ResultCache, 'delete'>;
  /** Drops the account's cached context at a domain (catch-all peers and feedback counts). */
  forgetAccountDomain?: (accountId: string, domain: string) => void;
  /** The HMAC key of erased addresses' ids (derived from the server secret). */
  idKey: Uint8Array;
  audit?: AuditTrail;
}

/** Erases addresses; HubSpot's privacy deletion and Mailchimp's permanent deletion call it too. */
export class ErasureService {
  readonly #deps: ErasureDeps;

  constructor(deps: ErasureDeps) {
    this.#deps = deps;
  }

  /** Erases `email` from the account's data; `by` is recorded in the audit log when given. */
  async eraseAddress(accountId: string, email: string, by?: Initiator): Promise<ErasureCounts> {
    const key = addressKey(email);
    const domain = domainOfKey(key);
    const feedbackAddress = feedbackAddressOf(email)?.address ?? null;
    const listRows = await this.#deps.store.eraseFromLists(accountId, {
      addressKey: key,
      domain,
      feedbackAddress,
    });
    const feedback =
      feedbackAddress === null ? 0 : await this.#deps.store.eraseFeedback(accountId, feedbackAddress);
    await this.#deps.store.eraseFromWatches(accountId, key);
    this.#deps.forgetAccountDomain?.(accountId, domain);
    const cached = (await this.#deps.cache.delete(key)) ? 1 : 0;
    const counts = { list_rows: listRows, feedback, cached };
    if (this.#deps.audit !== undefined && by !== undefined) {
      await this.#deps.audit.record(accountId, by, {
        action: 'address.erased',
        targetId: erasedAddressId(this.#deps.idKey, key),
        details: { ...counts },
      });
    }
    return counts;
  }
}
