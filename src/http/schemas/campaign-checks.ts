/**
 * The pre-campaign check as JSON Schema: the request, and what the check found.
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

/** Shared schema `DraftCampaignList`: GET /api/v1/integrations/{id}/campaigns. */
export const draftCampaignListSchema = {
  $id: 'DraftCampaignList',
  type: 'object',
  required: ['campaigns'],
  properties: {
    campaigns: {
      type: 'array',
      description: "The platform's draft campaigns, newest first.",
      items: {
        type: 'object',
        required: ['id', 'title', 'audience_id', 'audience_name', 'recipient_count', 'created_at'],
        properties: {
          id: { type: 'string', description: 'Give it as `campaign_id` to check the campaign.' },
          title: { type: 'string' },
          audience_id: {
            type: ['string', 'null'],
            description:
              'The audience it goes to; null when none was chosen yet (it cannot be checked then).',
          },
          audience_name: { type: ['string', 'null'] },
          recipient_count: { ...count, description: 'Recipients as the platform counts them now.' },
          created_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    },
  },
} as const;

/** Shared schema `LastCampaignCheck`: GET /api/v1/integrations/{id}/campaign-checks/latest. */
export const lastCampaignCheckSchema = {
  $id: 'LastCampaignCheck',
  type: 'object',
  required: ['last_check'],
  properties: {
    last_check: {
      description: "The integration's last check, as it answered; null when it has none yet.",
      anyOf: [
        {
          type: 'object',
          required: ['checked_at', 'verify_unverified', 'check'],
          properties: {
            checked_at: { type: 'string', format: 'date-time' },
            verify_unverified: { type: 'boolean', description: 'As the check was asked.' },
            check: { $ref: 'CampaignCheck#' },
          },
        },
        { type: 'null' },
      ],
    },
  },
} as const;

export const campaignCheckSchemas = [
  campaignCheckSchema,
  draftCampaignListSchema,
  lastCampaignCheckSchema,
] as const;
