/**
 * What Mailvet writes to a Mailchimp audience (docs/integrations/mailchimp.md): the
 * names of the merge fields, tags and saved segments, and the categories statuses fall in.
 */
import type { Category } from '../categories.ts';

/** The merge fields, with Mailchimp's types. */
export const MERGE_FIELDS = [
  { tag: 'MV_STATUS', name: 'Mailvet status', type: 'text' },
  { tag: 'MV_SCORE', name: 'Mailvet score', type: 'number' },
  { tag: 'MV_CHECKED', name: 'Mailvet checked', type: 'date', options: { date_format: 'YYYY-MM-DD' } },
] as const;

/** The tag of each category: exactly one of them is active on a verified member. */
export const CATEGORY_TAGS: Readonly<Record<Category, string>> = {
  valid: 'mailvet-valid',
  risky: 'mailvet-risky',
  invalid: 'mailvet-invalid',
};

/**
 * The saved segments on `MV_SCORE`. Mailchimp compares number merge fields with TextMerge
 * conditions and the operators `greater`, `less` and `is` (there is no "at least"), so each band
 * is written with the bounds one past its ends: 80-100 is "greater than 79".
 */
export const SCORE_SEGMENTS = [
  { name: 'Mailvet score 80-100', conditions: [{ op: 'greater', value: '79' }] },
  {
    name: 'Mailvet score 50-79',
    conditions: [
      { op: 'greater', value: '49' },
      { op: 'less', value: '80' },
    ],
  },
  { name: 'Mailvet score 0-49', conditions: [{ op: 'less', value: '50' }] },
] as const;
