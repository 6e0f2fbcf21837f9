/**
 * Campaigns: `GET /campaigns` (by `status` and `list_id`, sorted by `create_time` when asked),
 * `GET /campaigns/{campaign_id}` with `recipients` (list, segment options, a recipient count
 * computed now) and `settings.title`, and `PATCH /campaigns/{campaign_id}` to change the
 * recipients' saved segment, only while the campaign is a draft (`save`).
 */
import { type ApiContext, collection, isObject, objectBody, ok, type Route } from './api.ts';
import { invalid, McProblem, notFound } from './problems.ts';
import { matches, segmentMembers } from './segments.ts';
import type { Campaign } from './state.ts';
import { mcTime } from './state.ts';

export function campaignView(ctx: Pick<ApiContext, 'world'>, campaign: Campaign): Record<string, unknown> {
  const audience = ctx.world.audiences.get(campaign.listId);
  const opts = campaign.segmentOpts;
  const saved =
    opts?.saved_segment_id === undefined ? undefined : audience?.segments.get(opts.saved_segment_id);
  const subscribed = audience
    ? [...audience.members.values()].filter((member) => member.status === 'subscribed')
    : [];
  const recipients = !audience
    ? []
    : saved
      ? segmentMembers(audience, saved)
      : opts?.conditions
        ? subscribed.filter((member) =>
            matches(audience, member, {
              match: opts.match === 'any' ? 'any' : 'all',
              conditions: opts.conditions ?? [],
            }),
          )
        : subscribed;
  return {
    id: campaign.id,
    web_id: campaign.webId,
    type: 'regular',
    create_time: mcTime(campaign.createdAt),
    archive_url: `http://eepurl.com/${campaign.id}`,
    long_archive_url: `https://us1.campaign-archive.com/?id=${campaign.id}`,
    status: campaign.status,
    emails_sent: campaign.status === 'sent' ? recipients.length : 0,
    send_time: '',
    content_type: 'template',
    needs_block_refresh: false,
    resendable: false,
    recipients: {
      list_id: campaign.listId,
      list_is_active: Boolean(audience),
      list_name: audience?.name ?? '',
      segment_text: saved
        ? `<p class="!margin--lv0 display--inline">Contacts match</p> the saved segment <strong>${saved.name}</strong>`
        : '',
      recipient_count: recipients.length,
      ...(opts ? { segment_opts: opts } : {}),
    },
    settings: {
      subject_line: campaign.subjectLine,
      preview_text: '',
      title: campaign.title,
      from_name: '',
      reply_to: '',
      use_conversation: false,
      to_name: '',
      folder_id: '',
      authenticate: true,
      auto_footer: false,
      inline_css: false,
      auto_tweet: false,
      fb_comments: false,
      timewarp: false,
      template_id: 0,
      drag_and_drop: true,
    },
    tracking: { opens: true, html_clicks: true, text_clicks: false, goal_tracking: false, ecomm360: false },
    delivery_status: { enabled: false },
  };
}

function campaignParam(ctx: ApiContext, id: string | undefined): Campaign {
  const campaign = ctx.world.campaigns.get(id ?? '');
  if (!campaign || campaign.accountId !== ctx.account.id) throw notFound();
  return campaign;
}

export const campaignRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/campaigns',
    handler: (ctx, request) => {
      const status = request.query.get('status');
      const listId = request.query.get('list_id');
      const campaigns = [...ctx.world.campaigns.values()].filter(
        (campaign) =>
          campaign.accountId === ctx.account.id &&
          (!status || campaign.status === status) &&
          (!listId || campaign.listId === listId),
      );
      // The reference's sort_field takes create_time or send_time; sort_dir ASC or DESC.
      if (request.query.get('sort_field') === 'create_time') {
        const direction = request.query.get('sort_dir') === 'DESC' ? -1 : 1;
        campaigns.sort((a, b) => direction * (a.createdAt.getTime() - b.createdAt.getTime()));
      }
      return ok(collection(request.query, 'campaigns', campaigns, (campaign) => campaignView(ctx, campaign)));
    },
  },
  {
    method: 'GET',
    pattern: '/campaigns/{campaign_id}',
    handler: (ctx, _request, params) => ok(campaignView(ctx, campaignParam(ctx, params.campaign_id))),
  },
  {
    method: 'PATCH',
    pattern: '/campaigns/{campaign_id}',
    handler: (ctx, request, params) => {
      const campaign = campaignParam(ctx, params.campaign_id);
      const body = objectBody(request);
      // The reference marks `settings` required on this PATCH; a client that always sends it works
      // whether or not Mailchimp enforces that.
      if (!isObject(body.settings))
        throw invalid([{ field: '', message: 'Required fields were not provided: settings' }]);
      if (campaign.status !== 'save') {
        throw new McProblem(
          'badRequest',
          `This campaign cannot be updated because its status is "${campaign.status}".`,
        );
      }
      const recipients = body.recipients;
      if (recipients !== undefined) applyRecipients(ctx, campaign, recipients);
      if (typeof body.settings.title === 'string') campaign.title = body.settings.title;
      if (typeof body.settings.subject_line === 'string') campaign.subjectLine = body.settings.subject_line;
      return ok(campaignView(ctx, campaign));
    },
  },
];

function applyRecipients(ctx: ApiContext, campaign: Campaign, recipients: unknown): void {
  if (!isObject(recipients) || typeof recipients.list_id !== 'string') {
    throw invalid([{ field: 'recipients', message: 'Required fields were not provided: list_id' }]);
  }
  const audience = ctx.world.audienceOf(ctx.account, recipients.list_id);
  if (!audience) throw invalid([{ field: 'recipients.list_id', message: 'The list does not exist.' }]);
  const opts = recipients.segment_opts;
  if (opts === undefined) {
    campaign.listId = audience.id;
    campaign.segmentOpts = undefined;
    return;
  }
  if (!isObject(opts))
    throw invalid([{ field: 'recipients.segment_opts', message: 'Schema describes object' }]);
  if (opts.saved_segment_id !== undefined) {
    const segment = audience.segments.get(Number(opts.saved_segment_id));
    if (!segment) {
      throw invalid([
        {
          field: 'recipients.segment_opts.saved_segment_id',
          message: 'The segment does not exist on this list.',
        },
      ]);
    }
    campaign.segmentOpts = {
      saved_segment_id: segment.id,
      match: segment.options?.match ?? 'all',
      conditions: segment.options?.conditions ?? [
        { condition_type: 'StaticSegment', field: 'static_segment', op: 'static_is', value: segment.id },
      ],
    };
  } else {
    campaign.segmentOpts = {
      match: opts.match === 'any' ? 'any' : 'all',
      conditions: Array.isArray(opts.conditions) ? (opts.conditions as Record<string, unknown>[]) : [],
    };
  }
  campaign.listId = audience.id;
}
