/**
 * The pre-campaign check (DESIGN §3.4) as JSON Schema: the request, and what the check found.
 */

const count = { type: 'integer', minimum: 0 } as const;

/** POST /api/v1/integrations/{id}/campaign-checks. */
export const campaignCheckBodySchema = {
  type: 'object',
  required: ['campaign_id'],
  additionalProperties: false,
  properties: {
    campaign_id: { type: 'string', minLength: 1, maxLength: 100, description: "The draft campaign's id." },
    verify_unverified: {
      type: 'boolean',
      description:
        'Verify the recipients never verified (no `MV_STATUS`) now, on the monthly quota, and write their results back (default true).',
    },
    exclude: {
      type: ['string', 'null'],
      enum: ['invalid', 'risky', null],
      description:
        '`invalid`: narrow the campaign to a segment without the invalid recipients; `risky`: without the risky and invalid ones. Absent or null: nothing in Mailchimp changes but results written back.',
    },
  },
} as const;

export interface CampaignCheckBody {
  campaign_id: string;
  verify_unverified?: boolean;
  exclude?: 'invalid' | 'risky' | null;
}

/** Shared schema `CampaignCheck`. */
export const campaignCheckSchema = {
  $id: 'CampaignCheck',
  type: 'object',
  required: [
    'campaign_id',
    'title',
    'audience_id',
    'recipients',
    'by_category',
    'verified',
    'excluded',
    'message',
  ],
  properties: {
    campaign_id: { type: 'string' },
    title: { type: 'string', description: "The campaign's title in Mailchimp." },
    audience_id: { type: 'string' },
    recipients: { ...count, description: 'Subscribed members the campaign goes to, before any exclusion.' },
    by_category: {
      type: 'object',
      required: ['valid', 'risky', 'invalid', 'unverified'],
      description: 'The recipients by the category of their `MV_STATUS` (or of this check’s verification).',
      properties: { valid: count, risky: count, invalid: count, unverified: count },
    },
    verified: { ...count, description: 'Recipients verified (and charged) by this check.' },
    excluded: {
      type: ['object', 'null'],
      description: 'The segment the campaign now goes to; null when nothing was excluded.',
      required: ['segment_id', 'segment_name', 'members'],
      properties: {
        segment_id: { type: 'string' },
        segment_name: { type: 'string' },
        members: { ...count, description: 'Members in the segment, as Mailchimp counts them.' },
      },
    },
    message: {
      type: ['string', 'null'],
      description:
        'What was left undone and why (the quota ran out, the bounds of one check, write errors); null when nothing was.',
    },
  },
} as const;

export const campaignCheckSchemas = [campaignCheckSchema] as const;
