/**
 * The account root (`GET /`), `GET /ping`, audiences (`GET /lists`, `GET /lists/{list_id}`) and the
 * batch member update `POST /lists/{list_id}` (≤ 500 members, `update_existing`, per-member errors).
 */
import { type ApiContext, collection, isObject, objectBody, ok, type Route } from './api.ts';
import { memberView, writeMember } from './members.ts';
import { audienceParam } from './merge-fields.ts';
import { invalid, McProblem } from './problems.ts';
import { type Audience, mcTime, subscriberHash } from './state.ts';

const BATCH_MEMBERS_MAX = 500;

function listView(audience: Audience, withTotalContacts: boolean): Record<string, unknown> {
  const members = [...audience.members.values()];
  const count = (status: string) => members.filter((member) => member.status === status).length;
  const lastSub = members
    .filter((member) => member.status === 'subscribed')
    .reduce((latest, member) => Math.max(latest, member.timestampSignup.getTime()), 0);
  return {
    id: audience.id,
    web_id: audience.webId,
    name: audience.name,
    contact: {
      company: 'Emulated',
      address1: '',
      address2: '',
      city: '',
      state: '',
      zip: '',
      country: 'US',
      phone: '',
    },
    permission_reminder: '',
    use_archive_bar: false,
    campaign_defaults: { from_name: '', from_email: '', subject: '', language: 'en' },
    notify_on_subscribe: '',
    notify_on_unsubscribe: '',
    date_created: mcTime(audience.createdAt),
    list_rating: 0,
    email_type_option: false,
    subscribe_url_short: `http://eepurl.com/${audience.id}`,
    subscribe_url_long: `https://example.us1.list-manage.com/subscribe?id=${audience.id}`,
    beamer_address: `${audience.id}@inbound.mailchimp.com`,
    visibility: 'prv',
    double_optin: false,
    has_welcome: false,
    marketing_permissions: false,
    modules: [],
    stats: {
      member_count: count('subscribed'),
      ...(withTotalContacts ? { total_contacts: members.filter((m) => m.status !== 'archived').length } : {}),
      unsubscribe_count: count('unsubscribed'),
      cleaned_count: count('cleaned'),
      member_count_since_send: count('subscribed'),
      unsubscribe_count_since_send: count('unsubscribed'),
      cleaned_count_since_send: count('cleaned'),
      campaign_count: 0,
      campaign_last_sent: '',
      merge_field_count: audience.mergeFields.length,
      avg_sub_rate: 0,
      avg_unsub_rate: 0,
      target_sub_rate: 0,
      open_rate: 0,
      click_rate: 0,
      last_sub_date: lastSub ? mcTime(new Date(lastSub)) : '',
      last_unsub_date: '',
    },
  };
}

export const listRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/',
    handler: (ctx) => {
      const { account } = ctx;
      const subscribers = ctx.world
        .audiencesOf(account)
        .reduce(
          (sum, audience) =>
            sum + [...audience.members.values()].filter((m) => m.status === 'subscribed').length,
          0,
        );
      return ok({
        account_id: account.id,
        login_id: account.loginId,
        account_name: account.name,
        email: account.email,
        first_name: 'Emulated',
        last_name: 'Owner',
        username: account.email,
        avatar_url: '',
        role: 'owner',
        member_since: mcTime(account.createdAt),
        pricing_plan_type: 'monthly',
        first_payment: '',
        account_timezone: 'UTC',
        account_industry: '',
        contact: { company: account.name, addr1: '', addr2: '', city: '', state: '', zip: '', country: 'US' },
        pro_enabled: false,
        last_login: mcTime(account.createdAt),
        total_subscribers: subscribers,
        industry_stats: { open_rate: 0, bounce_rate: 0, click_rate: 0 },
      });
    },
  },
  { method: 'GET', pattern: '/ping', handler: () => ok({ health_status: "Everything's Chimpy!" }) },
  {
    method: 'GET',
    pattern: '/lists',
    handler: (ctx, request) => {
      const email = request.query.get('email');
      const audiences = ctx.world
        .audiencesOf(ctx.account)
        .filter((audience) => !email || audience.members.has(subscriberHash(email)));
      const totals = request.query.get('include_total_contacts') === 'true';
      return ok(
        collection(request.query, 'lists', audiences, (audience) => listView(audience, totals), {
          constraints: { may_create: true, max_instances: 5, current_total_instances: audiences.length },
        }),
      );
    },
  },
  {
    method: 'GET',
    pattern: '/lists/{list_id}',
    handler: (ctx, request, params) =>
      ok(
        listView(audienceParam(ctx, params.list_id), request.query.get('include_total_contacts') === 'true'),
      ),
  },
  {
    method: 'POST',
    pattern: '/lists/{list_id}',
    handler: (ctx, request, params) =>
      batchUpdateMembers(ctx, audienceParam(ctx, params.list_id), objectBody(request)),
  },
];

interface BatchMemberError {
  email_address: string;
  error: string;
  error_code: 'ERROR_CONTACT_EXISTS' | 'ERROR_GENERIC';
  field: string;
  field_message: string;
}

/** `POST /lists/{list_id}`: each member added or updated on its own; failures are listed, not thrown. */
function batchUpdateMembers(ctx: ApiContext, audience: Audience, body: Record<string, unknown>) {
  const members = body.members;
  if (!Array.isArray(members))
    throw invalid([{ field: '', message: 'Required fields were not provided: members' }]);
  if (members.length > BATCH_MEMBERS_MAX) {
    throw invalid([
      {
        field: 'members',
        message: `A maximum of ${BATCH_MEMBERS_MAX} members may be added or updated per call.`,
      },
    ]);
  }
  const updateExisting = body.update_existing === true;
  const created: Record<string, unknown>[] = [];
  const updated: Record<string, unknown>[] = [];
  const errors: BatchMemberError[] = [];
  for (const item of members) {
    const entry = isObject(item) ? item : {};
    const email = typeof entry.email_address === 'string' ? entry.email_address : '';
    const existing = email ? audience.members.get(subscriberHash(email)) : undefined;
    if (existing && existing.status !== 'archived' && !updateExisting) {
      errors.push({
        email_address: email,
        error: `${email} is already a list member, do you want to update? please provide update_existing:true in the request body`,
        error_code: 'ERROR_CONTACT_EXISTS',
        field: '',
        field_message: '',
      });
      continue;
    }
    try {
      const mode = existing && existing.status !== 'archived' ? 'patch' : 'post';
      const { member, created: isNew } = writeMember(
        ctx,
        audience,
        email ? subscriberHash(email) : undefined,
        entry,
        mode,
      );
      (isNew ? created : updated).push(memberView(member, audience));
    } catch (error) {
      if (!(error instanceof McProblem)) throw error;
      const first = error.errors?.[0];
      errors.push({
        email_address: email,
        error: error.detail,
        error_code: 'ERROR_GENERIC',
        field: first?.field ?? '',
        field_message: first?.message ?? '',
      });
    }
  }
  return ok({
    new_members: created,
    updated_members: updated,
    errors,
    total_created: created.length,
    total_updated: updated.length,
    error_count: errors.length,
  });
}
