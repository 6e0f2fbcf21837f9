/**
 * The hooks platforms call for watched audiences: `/hooks/{provider}/{token}`
 * (Mailchimp's: `/hooks/mailchimp/{token}`). `GET` answers 200 for a watch's token, as Mailchimp
 * checks a URL before it accepts it; `POST` takes an event (form-encoded, as Mailchimp posts it, or
 * JSON), which the provider reads, and answers at once, the work done after. An unknown provider,
 * an unknown or malformed token, or a token of another provider's watch is a 404, the same for all,
 * and says nothing else. No session or key: the unguessable token is the authentication.
 */
import formBody from '@fastify/formbody';
import type { FastifyPluginAsync } from 'fastify';
import type { WatchService } from '../../integrations/watches.ts';
import { ApiError } from '../errors.ts';

export interface IntegrationHookDeps {
  watches: Pick<WatchService, 'knows' | 'receive'>;
}

/** 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** A subscribe event is a few hundred bytes; Mailchimp's merges may add a few kB. */
const HOOK_BODY_LIMIT = 64 * 1024;

const params = {
  type: 'object',
  required: ['provider', 'token'],
  properties: {
    provider: { type: 'string', maxLength: 40 },
    token: { type: 'string', maxLength: 64 },
  },
} as const;

interface HookParams {
  provider: string;
  token: string;
}

const noSuchHook = () => new ApiError('not_found', { message: 'No such hook' });

export const integrationHookRoutes: FastifyPluginAsync<IntegrationHookDeps> = async (app, { watches }) => {
  await app.register(formBody, { bodyLimit: HOOK_BODY_LIMIT });

  app.get<{ Params: HookParams }>(
    '/hooks/:provider/:token',
    { schema: { hide: true, params } },
    async (request) => {
      const { provider, token } = request.params;
      if (!TOKEN.test(token) || !(await watches.knows(provider, token))) throw noSuchHook();
      return { ok: true };
    },
  );

  app.post<{ Params: HookParams; Body: unknown }>(
    '/hooks/:provider/:token',
    { schema: { hide: true, params }, bodyLimit: HOOK_BODY_LIMIT },
    async (request) => {
      const { provider, token } = request.params;
      if (!TOKEN.test(token)) throw noSuchHook();
      const body =
        typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body)
          ? (request.body as Record<string, unknown>)
          : {};
      if (!(await watches.receive(provider, token, body))) throw noSuchHook();
      return { ok: true };
    },
  );
};
