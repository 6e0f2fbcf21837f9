/**
 * The pre-campaign check (DESIGN §3.4): a draft campaign's recipients counted by category, the
 * unverified ones optionally verified and written back, and the campaign optionally narrowed to a
 * segment without the invalid (or risky) ones. Another account's integration is a 404; a campaign
 * that is no draft is a 409; one Mailchimp does not have is a 422 on `campaign_id`.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  type CampaignCheck,
  CampaignCheckRefused,
  type CampaignCheckService,
} from '../../../../integrations/campaign-check.ts';
import { SegmentNameTaken } from '../../../../integrations/campaign-ports.ts';
import { ApiError, validationFailed } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../../plugins/json-body.ts';
import { type CampaignCheckBody, campaignCheckBodySchema } from '../../../schemas/campaign-checks.ts';
import { integrationIdParams } from '../../../schemas/integrations.ts';
import { authedErrorResponses, okResponse } from '../../../schemas/responses.ts';
import { integrationNotFound, providerFailure } from './failures.ts';

export interface CampaignCheckRoutesDeps {
  campaignChecks: CampaignCheckService;
}

export const campaignCheckRoutes: FastifyPluginAsync<CampaignCheckRoutesDeps> = async (
  app,
  { campaignChecks },
) => {
  await app.register(jsonBodyPlugin);
  app.post<{ Params: { id: string }; Body: CampaignCheckBody }>(
    '/integrations/:id/campaign-checks',
    {
      schema: {
        tags: ['integrations'],
        summary:
          "Check a draft campaign's recipients by category; optionally verify the unverified ones and leave out the invalid (or risky) ones",
        params: integrationIdParams,
        body: campaignCheckBodySchema,
        response: {
          200: okResponse('CampaignCheck', 'What the check found (and did).'),
          ...authedErrorResponses({
            400: ['bad_request'],
            404: ['not_found'],
            409: ['conflict', 'integration_disconnected'],
            422: ['validation_failed'],
            502: ['provider_unavailable'],
          }),
        },
      },
    },
    async (request) => {
      let check: CampaignCheck | null;
      try {
        check = await campaignChecks.check(callerOf(request).accountId, request.params.id, {
          campaignId: request.body.campaign_id,
          verifyUnverified: request.body.verify_unverified ?? true,
          exclude: request.body.exclude ?? null,
        });
      } catch (error) {
        throw refusal(error);
      }
      if (check === null) throw integrationNotFound();
      return campaignCheckView(check);
    },
  );
};

function refusal(error: unknown): unknown {
  if (error instanceof CampaignCheckRefused) {
    if (error.reason === 'not_draft') return new ApiError('conflict', { message: error.message });
    const message =
      error.reason === 'unknown_campaign' ? 'No such campaign in this Mailchimp account' : error.message;
    return validationFailed([{ field: 'campaign_id', message }]);
  }
  if (error instanceof SegmentNameTaken) return new ApiError('conflict', { message: error.message });
  return providerFailure(error);
}

function campaignCheckView(check: CampaignCheck) {
  return {
    campaign_id: check.campaignId,
    title: check.title,
    audience_id: check.audienceId,
    recipients: check.recipients,
    by_category: check.byCategory,
    verified: check.verified,
    excluded:
      check.excluded === null
        ? null
        : {
            segment_id: check.excluded.id,
            segment_name: check.excluded.name,
            members: check.excluded.members,
          },
    message: check.message,
  };
}
