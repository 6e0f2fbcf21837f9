/**
 * POST /api/v1/domains/check: the sender-domain report (SPF, DMARC, DKIM, MX and STARTTLS, PTR,
 * MTA-STS, TLS-RPT, BIMI, blocklists) with a grade and the fixes. Charges one verification.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { DomainCheckService } from '../../../sender-checks/domain-check-service.ts';
import { senderDomain } from '../../../sender-checks/domain-name.ts';
import { domainReportJson } from '../../../sender-checks/report-json.ts';
import { ApiError, quotaExceeded, validationFailed } from '../../errors.ts';
import { callerOf } from '../../plugins/auth.ts';
import { setQuotaHeaders } from '../../quota-headers.ts';
import {
  type DomainCheckBody,
  domainCheckBodySchema,
  domainReportSchema,
} from '../../schemas/domain-check.ts';
import { accountingHeaders, apiErrorResponses } from '../../schemas/responses.ts';

export interface DomainCheckRouteDeps {
  domainChecks: Pick<DomainCheckService, 'check'>;
}

/** Seconds a caller refused for running too many checks at once is asked to wait. */
const BUSY_RETRY_SECONDS = 5;

const schema = {
  tags: ['verification'],
  summary: 'Check a sending domain',
  description:
    'Looks at the domain as receivers do: SPF, DMARC, DKIM (the selectors given, else common ones), MX hosts ' +
    '(reachable on port 25, STARTTLS, certificate, reverse DNS), MTA-STS, TLS-RPT, BIMI and blocklists, and ' +
    'answers a grade with every finding and its fix. Charges one unit of the monthly quota, a cached report ' +
    'too (reports are reused for a few minutes per domain and selectors). At most a few checks of one ' +
    'account run at once: another is refused with 429 `rate_limited` until one ends.',
  security: [{ bearerAuth: [] }],
  body: domainCheckBodySchema,
  response: {
    200: { description: 'The report.', headers: accountingHeaders, ...domainReportSchema },
    ...apiErrorResponses({
      400: ['bad_request'],
      401: ['unauthorized'],
      413: ['payload_too_large'],
      422: ['validation_failed'],
      429: ['rate_limited', 'quota_exceeded'],
      500: ['internal_error'],
    }),
  },
};

/** The sender-domain check route. */
export const domainCheckRoute: FastifyPluginAsync<DomainCheckRouteDeps> = async (app, { domainChecks }) => {
  app.post<{ Body: DomainCheckBody }>('/domains/check', { schema }, async (request, reply) => {
    const parsed = senderDomain(request.body.domain);
    if (!parsed.ok) throw validationFailed([{ field: 'domain', message: parsed.problem }]);
    const outcome = await domainChecks.check(
      callerOf(request),
      parsed.domain,
      request.body.dkim_selectors ?? [],
    );
    if (outcome.kind === 'busy') {
      throw new ApiError('rate_limited', {
        message: `${outcome.running} domain checks of this account are running: try again when one ends`,
        headers: { 'retry-after': BUSY_RETRY_SECONDS },
      });
    }
    setQuotaHeaders(reply, outcome.quota);
    if (outcome.kind === 'quota_exceeded') throw quotaExceeded(outcome.quota);
    return domainReportJson(outcome.report, outcome.cached);
  });
};
