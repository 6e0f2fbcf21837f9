/**
 * Each platform's own words (Mailchimp's audiences and tags, HubSpot's lists and properties), given
 * to the components of one integration's card by its provider, so the shared forms speak as the
 * platform the owner knows does.
 */
import { createContext, type ReactNode, useContext } from 'react';
import type { Problem } from '../api/problem';
import { MEMBER_STATUSES, type MemberStatus } from './run-settings';

export interface PlatformWords {
  label: string;
  audiences: string;
  audience: string;
  newMembers: string;
  emptyAudiences: string;
  fields: string;
  tags: string;
  segments: string;
  campaigns: string;
  unsubscribeEffect: string;
  where: (dc: string, portalId: string | undefined) => ReactNode;
  reconnect: string;
  /** "an audience", "a list". */
  anAudience: string;
  /** One person of an audience, and several. */
  member: string;
  members: string;
  /** The statuses a run may read, as the platform names them. */
  statuses: ReadonlyArray<{ status: MemberStatus; label: string }>;
  /** What the platform's stored credential is called. */
  credential: string;
  /** The name of an audience's watch toggle. */
  watchLabel: (audienceName: string) => string;
  /** What the watch toggle does, and how soon. */
  watchHelp: string;
  /** What a disconnection removes besides schedules. */
  watchesRemoved: string;
  /** One campaign, for a sentence's start and middle. */
  campaign: string;
  draftLabel: string;
  checkButton: string;
  /** What the campaign goes to once some were left out. */
  excludedInto: (name: string) => string;
  excludeQuestion: (who: string, title: string) => string;
  /** Where a permission the platform did not grant is granted (409 integration_scope_missing); '' if nowhere to say. */
  grantScope: string;
  /** The OAuth callback's outcomes (`?error=…`) on the Integrations page. */
  oauth: { connected: string; denied: string; state: string; refused: string };
  /** The OAuth callback's success, once the list says which account it connected. */
  connectedAs: (integration: { account_name: string; dc: string; portal_id?: string }) => string;
}

const MAILCHIMP: PlatformWords = {
  label: 'Mailchimp',
  audiences: 'Audiences',
  audience: 'Audience',
  newMembers: 'New subscribers',
  emptyAudiences: 'This Mailchimp account has no audiences yet.',
  fields: 'Fields (MV_STATUS, MV_SCORE, MV_CHECKED)',
  tags: 'Tags (mailvet-valid, mailvet-risky, mailvet-invalid)',
  segments: 'Segments by score',
  campaigns: 'campaigns',
  unsubscribeEffect:
    'Invalid contacts become unsubscribed in Mailchimp and get no campaigns until they subscribe again.',
  where: (dc) => (
    <>
      Mailchimp, data centre <code>{dc}</code>
    </>
  ),
  reconnect:
    'It must be connected again: make a new API key in Mailchimp and connect it above, then disconnect this one.',
  anAudience: 'an audience',
  member: 'member',
  members: 'members',
  statuses: MEMBER_STATUSES,
  credential: 'API key',
  watchLabel: (name) => `Verify new subscribers of ${name}`,
  watchHelp:
    'New subscribers: when on, each new subscriber is verified as they arrive, and counts against your monthly quota.',
  watchesRemoved: 'new-subscriber watches',
  campaign: 'campaign',
  draftLabel: 'Draft campaign',
  checkButton: 'Check campaign',
  excludedInto: (name) => `The campaign now goes to the segment “${name}”`,
  excludeQuestion: (who, title) =>
    `Leave ${who} out of “${title}”? The campaign will go to a segment without them; no contact is removed from Mailchimp.`,
  grantScope: '',
  oauth: {
    connected: 'Mailchimp is connected.',
    denied: 'Mailchimp was not connected: access was not allowed at Mailchimp.',
    state: 'Mailchimp was not connected: the link had expired or was not yours. Try again.',
    refused: 'Mailchimp did not confirm the connection. Try again, or use an API key.',
  },
  connectedAs: ({ account_name, dc }) => `Connected “${account_name}” (${dc}).`,
};

const HUBSPOT: PlatformWords = {
  label: 'HubSpot',
  audiences: 'Lists',
  audience: 'List',
  newMembers: 'New contacts',
  emptyAudiences: 'This HubSpot portal has no contact lists yet.',
  fields: 'Properties (mailvet_status, mailvet_score, mailvet_checked)',
  tags: 'Category property (mailvet_category: valid, risky, invalid)',
  segments: 'Active lists by score',
  campaigns: 'marketing emails',
  unsubscribeEffect:
    'Invalid contacts are opted out of all email in HubSpot and get no marketing emails until they opt in again.',
  where: (dc, portalId) => (
    <>
      HubSpot portal <code>{portalId ?? '?'}</code> ({dc})
    </>
  ),
  reconnect:
    'It must be connected again: connect the HubSpot app again, or paste a new private app token above, then disconnect this one.',
  anAudience: 'a list',
  member: 'contact',
  members: 'contacts',
  // A HubSpot contact is subscribed to email or opted out of it; Mailchimp's other statuses do not exist there.
  statuses: [
    { status: 'subscribed', label: 'Subscribed to email' },
    { status: 'unsubscribed', label: 'Opted out of email' },
  ],
  credential: 'token',
  watchLabel: (name) => `Verify new contacts of ${name}`,
  watchHelp:
    'New contacts: when on, each contact created in HubSpot from now on (in this list, or anywhere for All contacts) is verified and written back within a minute or so, and counts against your monthly quota.',
  watchesRemoved: 'new-contact watches',
  campaign: 'marketing email',
  draftLabel: 'Draft marketing email',
  checkButton: 'Check marketing email',
  excludedInto: (name) => `The marketing email now leaves out the list “${name}”`,
  excludeQuestion: (who, title) =>
    `Leave ${who} out of “${title}”? A list of them is added to the email’s excluded lists; no contact is removed from HubSpot.`,
  grantScope: 'In HubSpot: Settings → Integrations → Private Apps → the app → Scopes.',
  oauth: {
    connected: 'HubSpot is connected.',
    denied: 'HubSpot was not connected: access was not allowed at HubSpot.',
    state: 'HubSpot was not connected: the link had expired or was not yours. Try again.',
    refused: 'HubSpot did not confirm the connection. Try again, or use a private app token.',
  },
  connectedAs: ({ account_name, portal_id }) =>
    `Connected “${account_name}” (HubSpot portal ${portal_id ?? '?'}).`,
};

/** A word as a sentence or a heading starts with it. */
export function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * A refusal as the card shows it: a permission the connection was not granted (409
 * `integration_scope_missing`, whose message names the scope) also says where to grant it.
 */
export function withGrantHint(problem: Problem, platform: PlatformWords): Problem {
  if (problem.code !== 'integration_scope_missing') return problem;
  const named = problem.message.replace(/^The platform\b/, platform.label).replace(/\.$/, '');
  return {
    ...problem,
    message: platform.grantScope === '' ? `${named}.` : `${named}. ${platform.grantScope}`,
  };
}

/** The words of a provider; Mailchimp's for one this dashboard does not know. */
export function wordsOf(provider: string): PlatformWords {
  return provider === 'hubspot' ? HUBSPOT : MAILCHIMP;
}

const Platform = createContext<PlatformWords>(MAILCHIMP);

export function PlatformProvider({ provider, children }: { provider: string; children: ReactNode }) {
  return <Platform.Provider value={wordsOf(provider)}>{children}</Platform.Provider>;
}

/** The words of the integration whose card this is in. */
export function usePlatform(): PlatformWords {
  return useContext(Platform);
}
