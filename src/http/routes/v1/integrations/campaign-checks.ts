/**
 * The pre-campaign check: the platform's draft campaigns to pick from; a draft campaign's
 * recipients counted by category, the unverified ones optionally verified and written back, and the
 * campaign optionally narrowed to a segment without the invalid (or risky) ones; and the
 * integration's last check, kept in the store so it is there after a reload. Another account's
 * integration is a 404; a campaign that is no draft is a 409; one Mailchimp does not have is a 422
 * on `campaign_id`.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  type CampaignCheck,
  CampaignCheckRefused,
  type CampaignCheckService,
} from '../../../../integrations/campaign-check.ts';
import {
  type DraftCampaign,
  type LastCampaignCheck,
  SegmentNameTaken,
} from '../../../../integrations/campaign-ports.ts';
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
  app.get<{ Params: { id: string } }>(
    '/integrations/:id/campaigns',
    {
      schema: {
        tags: ['integrations'],
        summary: "The platform's draft campaigns, to pick one to check",
        params: integrationIdParams,
        response: {
          200: okResponse('DraftCampaignList', 'The drafts, newest first.'),
          ...authedErrorResponses({
            404: ['not_found'],
            409: ['integration_disconnected', 'integration_scope_missing'],
            502: ['provider_unavailable'],
          }),
        },
      },
    },
    async (request) => {
      let drafts: DraftCampaign[] | null;
      try {
        drafts = await campaignChecks.drafts(callerOf(request).accountId, request.params.id);
      } catch (error) {
        throw providerFailure(error);
      }
      if (drafts === null) throw integrationNotFound();
      return { campaigns: drafts.map(draftView) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/integrations/:id/campaign-checks/latest',
    {
      schema: {
        tags: ['integrations'],
        summary: "The integration's last pre-campaign check, as it answered",
        params: integrationIdParams,
        response: {
          200: okResponse('LastCampaignCheck', 'The last check, or null.'),
          ...authedErrorResponses({ 404: ['not_found'] }),
        },
      },
    },
    async (request) => {
      const last = await campaignChecks.last(callerOf(request).accountId, request.params.id);
      if (last === undefined) throw integrationNotFound();
      return { last_check: last === null ? null : lastCheckView(last) };
    },
  );

  // The JSON-object check is the POST's alone: the reads above have no body.
  await app.register(async (writes) => {
    await writes.register(jsonBodyPlugin);
    writes.post<{ Params: { id: string }; Body: CampaignCheckBody }>(
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
              409: ['conflict', 'integration_disconnected', 'integration_scope_missing'],
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
  });
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

function draftView(draft: DraftCampaign) {
  return {
    id: draft.id,
    title: draft.title,
    audience_id: draft.audienceId,
    audience_name: draft.audienceName,
    recipient_count: draft.recipientCount,
    created_at: draft.createdAt,
  };
}

function lastCheckView(last: LastCampaignCheck) {
  return {
    checked_at: last.checkedAt,
    verify_unverified: last.verifyUnverified,
    check: campaignCheckView(last.check),
  };
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
