/**
 * Connecting a platform by OAuth from the dashboard, for each provider whose OAuth the
 * operator configured: `GET /integrations/{provider}/connect` (Mailchimp's:
 * `/integrations/mailchimp/connect`) sends the signed-in browser to the platform's consent page with
 * a `state` bound to its session and the platform; `GET /integrations/{provider}/callback` checks
 * that state, trades the code for a token, learns the data centre and connects, then returns to the
 * dashboard's Integrations page with the outcome in the query (`connected=<id>` or
 * `error=<reason>`, and `provider=<name>`, so the page names the platform concerned). Browser routes, so every answer is a redirect, never a JSON error; the redirect
 * URI is MAILVET_PUBLIC_URL's.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ResumedSession, SessionManager } from '../../accounts/sessions.ts';
import type { IntegrationService } from '../../integrations/integration-service.ts';
import { issueOAuthState, oauthStateValid } from '../../integrations/oauth-state.ts';
import type { Provider, ProviderOAuth } from '../../integrations/ports.ts';
import { userInitiator } from '../plugins/audit.ts';
import { SESSION_COOKIE } from '../session-cookie.ts';

export interface IntegrationOAuthDeps {
  integrations: IntegrationService;
  sessions: SessionManager;
  secretKey: Buffer;
  /** MAILVET_PUBLIC_URL's origin: the redirect URI registered with the platform is under it. */
  publicOrigin: string;
  now?: () => Date;
}

/** Where a signed-in browser starts connecting the platform by OAuth. */
export const oauthConnectPath = (provider: string) => `/integrations/${provider}/connect`;

export const integrationOAuthRoutes: FastifyPluginAsync<IntegrationOAuthDeps> = async (app, deps) => {
  for (const provider of deps.integrations.withOAuth()) providerOAuthRoutes(app, deps, provider);
};

function providerOAuthRoutes(
  app: FastifyInstance,
  deps: IntegrationOAuthDeps,
  provider: Provider & { oauth: ProviderOAuth },
): void {
  const { oauth } = provider;
  const now = deps.now ?? (() => new Date());
  const callback = `/integrations/${provider.name}/callback`;
  const redirectUri = `${deps.publicOrigin}${callback}`;
  const back = (reply: FastifyReply, outcome: Record<string, string>) =>
    reply.redirect(
      `/integrations?${new URLSearchParams({ ...outcome, provider: provider.name }).toString()}`,
      303,
    );
  const signedIn = async (request: FastifyRequest): Promise<ResumedSession | null> => {
    const token = request.cookies?.[SESSION_COOKIE];
    return token === undefined ? null : deps.sessions.resume(token);
  };

  const binding = (resumed: ResumedSession) => ({ sessionId: resumed.session.id, provider: provider.name });

  app.get(oauthConnectPath(provider.name), { schema: { hide: true } }, async (request, reply) => {
    const resumed = await signedIn(request);
    if (resumed === null) return reply.redirect('/', 303);
    reply.header('cache-control', 'no-store');
    return reply.redirect(
      oauth.authorizeUrl(redirectUri, issueOAuthState(deps.secretKey, binding(resumed), now())),
      303,
    );
  });

  app.get<{ Querystring: Record<string, string | undefined> }>(
    callback,
    { schema: { hide: true } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      const resumed = await signedIn(request);
      if (resumed === null) return reply.redirect('/', 303);
      const { code, state, error } = request.query;
      if (typeof state !== 'string' || !oauthStateValid(deps.secretKey, binding(resumed), state, now())) {
        return back(reply, { error: 'state' });
      }
      if (typeof error === 'string')
        return back(reply, { error: error === 'access_denied' ? 'denied' : 'refused' });
      if (typeof code !== 'string' || code === '' || code.length > 512)
        return back(reply, { error: 'refused' });
      try {
        const { accessToken, dc } = await oauth.exchange(code, redirectUri);
        const integration = await deps.integrations.connectWithOAuth(
          resumed.user.accountId,
          provider.name,
          accessToken,
          dc,
          userInitiator(resumed.user, request.ip),
        );
        return back(reply, { connected: integration.id });
      } catch (failure) {
        request.log.warn({ err: failure, provider: provider.name }, 'OAuth connection failed');
        return back(reply, { error: 'refused' });
      }
    },
  );
}
