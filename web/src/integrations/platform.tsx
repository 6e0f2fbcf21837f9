/**
 * Each platform's own words (Mailchimp's audiences and tags, HubSpot's lists and properties), given
 * to the components of one integration's card by its provider, so the shared forms speak as the
 * platform the owner knows does.
 */
import { createContext, type ReactNode, useContext } from 'react';

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
};

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
