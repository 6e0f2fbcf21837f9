/**
 * The hook Mailchimp calls for a watched audience (DESIGN §3.4): `/hooks/mailchimp/{token}`.
 * `GET` answers 200 for a watch's token, as Mailchimp checks a URL before it accepts it; `POST`
 * takes a form-encoded event (`type`, `data[list_id]`, `data[email]`) and answers at once, the
 * work done after. An unknown or malformed token is a 404, the same for both, and says nothing
 * else. No session or key: the unguessable token is the authentication.
 */
import formBody from '@fastify/formbody';
import type { FastifyPluginAsync } from 'fastify';
import type { WatchService } from '../../integrations/watches.ts';
import { ApiError } from '../errors.ts';

export interface MailchimpHookDeps {
  watches: Pick<WatchService, 'knows' | 'receive'>;
}

/** 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** A subscribe event is a few hundred bytes; Mailchimp's merges may add a few kB. */
const HOOK_BODY_LIMIT = 64 * 1024;

const params = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', maxLength: 64 } },
} as const;

const noSuchHook = () => new ApiError('not_found', { message: 'No such hook' });

export const mailchimpHookRoutes: FastifyPluginAsync<MailchimpHookDeps> = async (app, { watches }) => {
  await app.register(formBody, { bodyLimit: HOOK_BODY_LIMIT });

  app.get<{ Params: { token: string } }>(
    '/hooks/mailchimp/:token',
    { schema: { hide: true, params } },
    async (request) => {
      if (!TOKEN.test(request.params.token) || !(await watches.knows(request.params.token)))
        throw noSuchHook();
      return { ok: true };
    },
  );

  app.post<{ Params: { token: string }; Body: Record<string, unknown> }>(
    '/hooks/mailchimp/:token',
    { schema: { hide: true, params }, bodyLimit: HOOK_BODY_LIMIT },
    async (request) => {
      if (!TOKEN.test(request.params.token)) throw noSuchHook();
      const body = typeof request.body === 'object' && request.body !== null ? request.body : {};
      const text = (name: string) => {
        const value = body[name];
        return typeof value === 'string' ? value.slice(0, 1024) : '';
      };
      const known = await watches.receive(request.params.token, {
        type: text('type'),
        audienceId: text('data[list_id]'),
        email: text('data[email]'),
      });
      if (!known) throw noSuchHook();
      return { ok: true };
    },
  );
};
