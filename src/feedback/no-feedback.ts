/**
 * Feedback of a caller that has none: `mailvet verify` runs without an account, so its catch-all
 * assessments read no bounces and no delivered peers.
 */
import { type AddressFeedback, FEEDBACK_EVENTS, type FeedbackEvent, type FeedbackStore } from './ports.ts';

const NOTHING = Object.fromEntries(FEEDBACK_EVENTS.map((event) => [event, null])) as AddressFeedback;
const NONE = Object.fromEntries(FEEDBACK_EVENTS.map((event) => [event, 0])) as Record<FeedbackEvent, number>;

/** A feedback source with no events at all. */
export const NO_FEEDBACK: Pick<FeedbackStore, 'domainStats' | 'deliveredAtDomain' | 'outcomeOf'> = {
  outcomeOf: async () => NOTHING,
  domainStats: async () => ({ addresses: 0, byEvent: NONE, bounced: 0 }),
  deliveredAtDomain: async () => [],
};
