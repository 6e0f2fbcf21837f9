/**
 * Integrations: connect an email platform with an API key, list and show the
 * account's integrations, disconnect (the sealed credentials are deleted), and read a platform's
 * audiences. With a key or a session; another account's integration is a 404.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ConnectRefused, type IntegrationService } from '../../../../integrations/integration-service.ts';
import { type Integration, ProviderError, type Watch } from '../../../../integrations/ports.ts';
import type { RunService } from '../../../../integrations/runs/run-service.ts';
import type { WatchService } from '../../../../integrations/watches.ts';
import { ApiError, validationFailed } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../../plugins/json-body.ts';
import {
  type ConnectBody,
  connectBodySchema,
  integrationIdParams,
  watchBodySchema,
  watchParams,
} from '../../../schemas/integrations.ts';
import { authedErrorResponses, okResponse } from '../../../schemas/responses.ts';
import { oauthConnectPath } from '../../integration-oauth.ts';
import { integrationNotFound, providerFailure } from './failures.ts';
import { runView } from './runs.ts';

export interface IntegrationRoutesDeps {
  integrations: IntegrationService;
  watches: WatchService;
  /** For each audience's last run. */
  runs?: RunService | undefined;
}

const errors = authedErrorResponses;

const tags = ['integrations'];

export const integrationRoutes: FastifyPluginAsync<IntegrationRoutesDeps> = async (
  app,
  { integrations, watches, runs },
) => {
  app.register(async (writes) => {
    await writes.register(jsonBodyPlugin);
    writes.post<{ Body: ConnectBody }>(
      '/integrations',
      {
        schema: {
          tags,
          summary: 'Connect an email platform with an API key',
          body: connectBodySchema,
          response: {
            201: okResponse('Integration', 'Connected.'),
            ...errors({ 400: ['bad_request'], 422: ['validation_failed'], 502: ['provider_unavailable'] }),
          },
        },
      },
      async (request, reply) => {
        const { accountId } = callerOf(request);
        try {
          const integration = await integrations.connectWithApiKey(
            accountId,
            request.body.provider,
            request.body.api_key,
            await request.initiator(),
          );
          reply.code(201);
          return integrationView(integration);
        } catch (error) {
          if (error instanceof ConnectRefused)
            throw validationFailed([{ field: error.field, message: error.message }]);
          throw providerFailure(error);
        }
      },
    );
  });

  app.get(
    '/integrations',
    {
      schema: {
        tags,
        summary: "The account's integrations, oldest first",
        response: { 200: okResponse('IntegrationList', 'The integrations.'), ...errors() },
      },
    },
    async (request) => ({
      integrations: (await integrations.list(callerOf(request).accountId)).map(integrationView),
      mailchimp_oauth_url:
        integrations.oauthOf('mailchimp') === undefined ? null : oauthConnectPath('mailchimp'),
      hubspot_oauth_url: integrations.oauthOf('hubspot') === undefined ? null : oauthConnectPath('hubspot'),
    }),
  );

  app.get<{ Params: { id: string } }>(
    '/integrations/:id',
    {
      schema: {
        tags,
        summary: 'One integration',
        params: integrationIdParams,
        response: { 200: okResponse('Integration', 'The integration.'), ...errors({ 404: ['not_found'] }) },
      },
    },
    async (request) => {
      const integration = await integrations.get(callerOf(request).accountId, request.params.id);
      if (integration === null) throw integrationNotFound();
      return integrationView(integration);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/integrations/:id',
    {
      schema: {
        tags,
        summary: 'Disconnect: the stored credentials are erased',
        params: integrationIdParams,
        response: { 204: { description: 'Disconnected.', type: 'null' }, ...errors({ 404: ['not_found'] }) },
      },
    },
    async (request, reply) => {
      // The platform's webhooks go first, while the credentials still exist to remove them.
      const { accountId } = callerOf(request);
      await watches.removeAll(accountId, request.params.id);
      if (!(await integrations.disconnect(accountId, request.params.id, await request.initiator())))
        throw integrationNotFound();
      reply.code(204);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/integrations/:id/audiences',
    {
      schema: {
        tags,
        summary: "The platform account's audiences with their member counts",
        params: integrationIdParams,
        response: {
          200: okResponse('AudienceList', 'The audiences.'),
          ...errors({ 404: ['not_found'], 409: ['integration_disconnected'], 502: ['provider_unavailable'] }),
        },
      },
    },
    async (request) => {
      let audiences: Awaited<ReturnType<IntegrationService['audiences']>>;
      try {
        audiences = await integrations.audiences(callerOf(request).accountId, request.params.id);
      } catch (error) {
        throw providerFailure(error);
      }
      if (audiences === null) throw integrationNotFound();
      const latest = (await runs?.latest(callerOf(request).accountId, request.params.id)) ?? new Map();
      return {
        audiences: audiences.map((audience) => ({
          id: audience.id,
          name: audience.name,
          member_count: audience.memberCount,
          last_run: latest.has(audience.id) ? runView(latest.get(audience.id)!) : null,
        })),
      };
    },
  );

  app.register(async (writes) => {
    await writes.register(jsonBodyPlugin);
    writes.post<{ Params: { id: string }; Body: { audience_id: string } }>(
      '/integrations/:id/watches',
      {
        schema: {
          tags,
          summary: 'Watch an audience: its new subscribers are verified and written back as they arrive',
          params: integrationIdParams,
          body: watchBodySchema,
          response: {
            201: okResponse('Watch', 'Watching.'),
            ...errors({
              400: ['bad_request'],
              404: ['not_found'],
              409: ['integration_disconnected', 'integration_scope_missing'],
              422: ['validation_failed'],
              502: ['provider_unavailable'],
            }),
          },
        },
      },
      async (request, reply) => {
        let watch: Watch | null;
        try {
          watch = await watches.create(
            callerOf(request).accountId,
            request.params.id,
            request.body.audience_id,
            await request.initiator(),
          );
        } catch (error) {
          if (error instanceof ProviderError && error.status === 404) {
            const integration = await integrations.get(callerOf(request).accountId, request.params.id);
            const platform =
              (integration && integrations.provider(integration.provider)?.label) ?? 'the platform';
            throw validationFailed([
              { field: 'audience_id', message: `No such audience in this ${platform} account` },
            ]);
          }
          throw providerFailure(error);
        }
        if (watch === null) throw integrationNotFound();
        reply.code(201);
        return watchView(watch);
      },
    );
  });

  app.get<{ Params: { id: string } }>(
    '/integrations/:id/watches',
    {
      schema: {
        tags,
        summary: "The integration's watched audiences",
        params: integrationIdParams,
        response: { 200: okResponse('WatchList', 'The watches.'), ...errors({ 404: ['not_found'] }) },
      },
    },
    async (request) => {
      const found = await watches.list(callerOf(request).accountId, request.params.id);
      if (found === null) throw integrationNotFound();
      return { watches: found.map(watchView) };
    },
  );

  app.delete<{ Params: { id: string; watchId: string } }>(
    '/integrations/:id/watches/:watchId',
    {
      schema: {
        tags,
        summary: 'Stop watching: the webhook is removed from Mailchimp',
        params: watchParams,
        response: {
          204: { description: 'Removed.', type: 'null' },
          ...errors({ 404: ['not_found'], 502: ['provider_unavailable'] }),
        },
      },
    },
    async (request, reply) => {
      let removed: boolean;
      try {
        removed = await watches.remove(
          callerOf(request).accountId,
          request.params.id,
          request.params.watchId,
          await request.initiator(),
        );
      } catch (error) {
        throw providerFailure(error);
      }
      if (!removed) throw new ApiError('not_found', { message: 'No such watch' });
      reply.code(204);
    },
  );
};

/** An audience's watch as the API shows it: never its hook token. */
function watchView(watch: Watch) {
  return { id: watch.id, audience_id: watch.audienceId, created_at: watch.createdAt };
}

/** An integration as the API shows it: never its credentials. */
export function integrationView(integration: Integration) {
  return {
    id: integration.id,
    provider: integration.provider,
    account_name: integration.accountName,
    dc: integration.dc,
    ...(integration.provider === 'hubspot' && { portal_id: integration.providerAccountId }),
    state: integration.state,
    message: integration.message,
    created_at: integration.createdAt,
  };
}
