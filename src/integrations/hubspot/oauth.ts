/**
 * HubSpot's OAuth 2 web flow: the consent page at MAILVET_HUBSPOT_LOGIN_URL (`/oauth/authorize`),
 * the code traded at MAILVET_HUBSPOT_BASE_URL's `/oauth/v3/token`. The credential kept is the
 * refresh token (HubSpot's access tokens last 30 minutes and are refreshed from it by `tokens.ts`).
 */
import type { ProviderOAuth } from '../ports.ts';
import { type OAuthApp, rememberGrant, requestToken } from './tokens.ts';

/** Scopes every connection needs; `content` and communication preferences are asked as optional. */
export const REQUIRED_SCOPES = [
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.lists.read',
  'crm.lists.write',
];
export const OPTIONAL_SCOPES = ['content', 'communication_preferences.read_write'];

export class HubSpotOAuth implements ProviderOAuth {
  constructor(
    readonly app: OAuthApp,
    readonly loginUrl: string,
  ) {}

  authorizeUrl(redirectUri: string, state: string): string {
    const url = new URL(`${this.loginUrl.replace(/\/+$/, '')}/oauth/authorize`);
    url.searchParams.set('client_id', this.app.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', REQUIRED_SCOPES.join(' '));
    url.searchParams.set('optional_scope', OPTIONAL_SCOPES.join(' '));
    url.searchParams.set('state', state);
    return url.toString();
  }

  /** The refresh token is what is kept (as `accessToken`, the port's name for the credential). */
  async exchange(code: string, redirectUri: string): Promise<{ accessToken: string; dc: string }> {
    const granted = await requestToken(this.app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
    });
    rememberGrant(granted);
    return { accessToken: granted.refreshToken, dc: 'oauth' };
  }
}
