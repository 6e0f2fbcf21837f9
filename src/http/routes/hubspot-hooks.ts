/**
 * `POST /hooks/hubspot`: the one URL of the operator's HubSpot app for its subscribed events
 * (`contact.creation`, `contact.privacyDeletion`), present when the app is configured. The body is
 * kept as the bytes sent, since the v3 signature covers them; the URI signed is the public one
 * (MAILVET_PUBLIC_URL's origin and the path called). Unsigned, wrongly signed or older than 5
 * minutes → 401 `signature_invalid`, nothing done. Its own path: `/hooks/{provider}/{token}` (the
 * watches' hooks) has two segments after `/hooks`, this one has one, so neither takes the other's.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { HubSpotAppEvents } from '../../integrations/hubspot/app-events.ts';
import { ApiError } from '../errors.ts';

export interface HubSpotHookDeps {
  events: Pick<HubSpotAppEvents, 'receive'>;
  /** MAILVET_PUBLIC_URL's origin: HubSpot signs the URL it called. */
  publicOrigin: string;
}

/** HubSpot sends at most 100 events a request, each a few hundred bytes. */
const EVENTS_BODY_LIMIT = 256 * 1024;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export const hubspotHookRoutes: FastifyPluginAsync<HubSpotHookDeps> = async (
  app,
  { events, publicOrigin },
) => {
  // In this plugin only: the body as the string that was signed, whatever its type says.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: EVENTS_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );

  app.post('/hooks/hubspot', { schema: { hide: true }, bodyLimit: EVENTS_BODY_LIMIT }, async (request) => {
    const signed = await events.receive({
      method: request.method,
      uri: `${publicOrigin}${request.url}`,
      body: typeof request.body === 'string' ? request.body : '',
      signature: header(request.headers['x-hubspot-signature-v3']),
      timestamp: header(request.headers['x-hubspot-request-timestamp']),
    });
    if (!signed) throw new ApiError('signature_invalid');
    return { ok: true };
  });
};
