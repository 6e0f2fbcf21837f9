/**
 * List members: the member document, `GET /lists/{list_id}/members` (paging, `status`,
 * `since_last_changed`), `GET/PUT/PATCH/POST/DELETE .../members/{subscriber_hash}`, the
 * delete-permanent action (both recorded as destructive calls, both posting `unsubscribe` with
 * `data[action]=delete` to the audience's webhooks), and member tags.
 */
import { type ApiContext, collection, dateParam, NO_CONTENT, objectBody, ok, type Route } from './api.ts';
import { audienceParam, checkMergeValues } from './merge-fields.ts';
import { type FieldProblem, invalid, McProblem, notFound } from './problems.ts';
import {
  ALL_STATUSES,
  type Audience,
  hex,
  type Member,
  type MemberStatus,
  mcTime,
  subscriberHash,
  WRITABLE_STATUSES,
  wholeSeconds,
} from './state.ts';
import { notifySubscribe, notifyUnsubscribe } from './webhooks.ts';

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function memberView(member: Member, audience: Audience): Record<string, unknown> {
  const mergeFields: Record<string, unknown> = {};
  for (const field of audience.mergeFields) mergeFields[field.tag] = member.mergeFields[field.tag] ?? '';
  const tags = tagsOf(member, audience);
  const fullName = [member.mergeFields.FNAME, member.mergeFields.LNAME].filter((part) => part).join(' ');
  return {
    id: member.hash,
    email_address: member.email,
    unique_email_id: member.uniqueEmailId,
    contact_id: member.contactId,
    full_name: fullName,
    web_id: member.webId,
    email_type: member.emailType,
    status: member.status,
    consents_to_one_to_one_messaging: true,
    merge_fields: mergeFields,
    stats: { avg_open_rate: 0, avg_click_rate: 0 },
    ip_signup: '',
    timestamp_signup: mcTime(member.timestampSignup),
    ip_opt: '',
    timestamp_opt: mcTime(member.timestampSignup),
    member_rating: 2,
    last_changed: mcTime(member.lastChanged),
    language: member.language,
    vip: member.vip,
    email_client: '',
    location: { latitude: 0, longitude: 0, gmtoff: 0, dstoff: 0, country_code: '', timezone: '', region: '' },
    source: member.source,
    tags_count: tags.length,
    tags,
    list_id: audience.id,
  };
}

/** The member's active tags as `[{id, name}]`. */
export function tagsOf(member: Member, audience: Audience): { id: number; name: string }[] {
  return [...member.tagIds].flatMap((id) => {
    const segment = audience.segments.get(id);
    return segment ? [{ id, name: segment.name }] : [];
  });
}

/** The member a `{subscriber_hash}` (MD5 hash, or the address itself as the docs allow) names. */
function hashParam(raw: string | undefined): string {
  const value = raw ?? '';
  return value.includes('@') ? subscriberHash(value) : value.toLowerCase();
}

function memberParam(audience: Audience, raw: string | undefined): Member {
  const member = audience.members.get(hashParam(raw));
  if (!member) throw notFound();
  return member;
}

/** Creates a member record (no validation: seeding and checked writes both end here). */
export function newMember(
  ctx: { serial(): number },
  email: string,
  status: MemberStatus,
  source: string,
): Member {
  const now = wholeSeconds();
  return {
    hash: subscriberHash(email),
    email,
    uniqueEmailId: hex(10),
    contactId: hex(32),
    webId: ctx.serial(),
    status,
    mergeFields: {},
    tagIds: new Set(),
    lastChanged: now,
    timestampSignup: now,
    source,
    emailType: 'html',
    language: '',
    vip: false,
  };
}

function statusProblem(field: string): FieldProblem {
  return {
    field,
    message: `Data presented is not one of the accepted values: ${WRITABLE_STATUSES.join(', ')}.`,
  };
}

function isWritableStatus(value: unknown): value is MemberStatus {
  return typeof value === 'string' && (WRITABLE_STATUSES as readonly string[]).includes(value);
}

type WriteMode = 'put' | 'patch' | 'post';

/** Validates and applies one member write; returns the member and whether it was created. */
export function writeMember(
  ctx: ApiContext,
  audience: Audience,
  hash: string | undefined,
  body: Record<string, unknown>,
  mode: WriteMode,
  skipMergeValidation = false,
): { member: Member; created: boolean } {
  const email = typeof body.email_address === 'string' ? body.email_address.trim() : undefined;
  const key = hash ?? (email ? subscriberHash(email) : '');
  const existing = audience.members.get(key);
  const live = existing && existing.status !== 'archived' ? existing : undefined;
  if (mode === 'patch' && !existing) throw notFound();
  if (mode === 'post' && live) {
    throw new McProblem(
      'memberExists',
      `${live.email} is already a list member. Use PUT to insert or update list members.`,
    );
  }
  const creating = !live && mode !== 'patch';
  if (creating) {
    const missing = [
      !email && 'email_address',
      mode === 'put' && !body.status_if_new && !body.status && 'status_if_new',
    ].filter((name): name is string => typeof name === 'string');
    if (mode === 'post' && !body.status) missing.push('status');
    if (missing.length > 0)
      throw invalid([{ field: '', message: `Required fields were not provided: ${missing.join(', ')}` }]);
  }
  if (email !== undefined && !EMAIL_SHAPE.test(email)) {
    throw invalid(
      [{ field: 'email_address', message: 'This value is not a valid email address.' }],
      `${email} looks fake or invalid, please enter a real email address.`,
    );
  }
  if (email !== undefined && hash !== undefined && subscriberHash(email) !== hash && !existing) {
    throw invalid([
      { field: 'email_address', message: 'The subscriber hash does not match the email address.' },
    ]);
  }
  const status = creating ? (body.status_if_new ?? body.status) : body.status;
  const problems: FieldProblem[] = [];
  if (status !== undefined && !isWritableStatus(status))
    problems.push(statusProblem(creating && body.status_if_new ? 'status_if_new' : 'status'));
  const merge = checkMergeValues(audience, body.merge_fields, creating, skipMergeValidation);
  if ('problems' in merge) {
    throw invalid(
      [...problems, ...merge.problems],
      problems.length > 0 ? undefined : 'Your merge fields were invalid.',
    );
  }
  if (problems.length > 0) throw invalid(problems);

  const member = creating
    ? newMember(ctx.world, email ?? '', status as MemberStatus, 'API - Generic')
    : (existing as Member);
  if (creating && existing) {
    // Re-adding an archived contact keeps its profile and tags.
    member.tagIds = existing.tagIds;
    member.mergeFields = { ...existing.mergeFields };
  }
  if (!creating && isWritableStatus(status)) member.status = status;
  Object.assign(member.mergeFields, merge.values);
  if (typeof body.email_type === 'string') member.emailType = body.email_type;
  if (typeof body.language === 'string') member.language = body.language;
  if (typeof body.vip === 'boolean') member.vip = body.vip;
  member.lastChanged = wholeSeconds();
  audience.members.set(member.hash, member);
  if (creating && member.status === 'subscribed')
    ctx.later(() => notifySubscribe(ctx.world, audience, member, 'api'));
  return { member, created: creating };
}

export const memberRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/lists/{list_id}/members',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const status = request.query.get('status');
      if (status && !(ALL_STATUSES as readonly string[]).includes(status))
        throw invalid([statusProblem('status')]);
      const since = dateParam(request.query, 'since_last_changed');
      const before = dateParam(request.query, 'before_last_changed');
      const members = [...audience.members.values()].filter(
        (member) =>
          (status ? member.status === status : member.status !== 'archived') &&
          (!since || member.lastChanged.getTime() >= since.getTime()) &&
          (!before || member.lastChanged.getTime() <= before.getTime()),
      );
      return ok(
        collection(request.query, 'members', members, (member) => memberView(member, audience), {
          list_id: audience.id,
        }),
      );
    },
  },
  {
    method: 'GET',
    pattern: '/lists/{list_id}/members/{subscriber_hash}',
    handler: (ctx, _request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      return ok(memberView(memberParam(audience, params.subscriber_hash), audience));
    },
  },
  ...(['PUT', 'PATCH'] as const).map(
    (method): Route => ({
      method,
      pattern: '/lists/{list_id}/members/{subscriber_hash}',
      handler: (ctx, request, params) => {
        const audience = audienceParam(ctx, params.list_id);
        const skip = request.query.get('skip_merge_validation') === 'true';
        const mode = method === 'PUT' ? 'put' : 'patch';
        const { member } = writeMember(
          ctx,
          audience,
          hashParam(params.subscriber_hash),
          objectBody(request),
          mode,
          skip,
        );
        return ok(memberView(member, audience));
      },
    }),
  ),
  {
    method: 'POST',
    pattern: '/lists/{list_id}/members',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const skip = request.query.get('skip_merge_validation') === 'true';
      const { member } = writeMember(ctx, audience, undefined, objectBody(request), 'post', skip);
      return ok(memberView(member, audience));
    },
  },
  {
    method: 'DELETE',
    pattern: '/lists/{list_id}/members/{subscriber_hash}',
    handler: (ctx, request, params) => {
      recordDestructive(ctx, 'DELETE', request.path);
      const audience = audienceParam(ctx, params.list_id);
      const member = memberParam(audience, params.subscriber_hash);
      member.status = 'archived';
      member.lastChanged = wholeSeconds();
      ctx.later(() => notifyUnsubscribe(ctx.world, audience, member, 'delete', 'api'));
      return NO_CONTENT;
    },
  },
  {
    method: 'POST',
    pattern: '/lists/{list_id}/members/{subscriber_hash}/actions/delete-permanent',
    handler: (ctx, request, params) => {
      recordDestructive(ctx, 'POST', request.path);
      const audience = audienceParam(ctx, params.list_id);
      const member = memberParam(audience, params.subscriber_hash);
      audience.members.delete(member.hash);
      ctx.later(() => notifyUnsubscribe(ctx.world, audience, member, 'delete', 'api'));
      return NO_CONTENT;
    },
  },
  {
    method: 'GET',
    pattern: '/lists/{list_id}/members/{subscriber_hash}/tags',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const tags = tagsOf(memberParam(audience, params.subscriber_hash), audience);
      return ok(collection(request.query, 'tags', tags, (tag) => ({ ...tag, date_added: '' })));
    },
  },
  {
    method: 'POST',
    pattern: '/lists/{list_id}/members/{subscriber_hash}/tags',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const member = memberParam(audience, params.subscriber_hash);
      const tags = objectBody(request).tags;
      if (!Array.isArray(tags))
        throw invalid([{ field: '', message: 'Required fields were not provided: tags' }]);
      const problems = tags.flatMap((tag, index): FieldProblem[] => {
        const valid =
          typeof tag === 'object' && tag !== null && typeof tag.name === 'string' && tag.name.trim() !== '';
        const status = valid ? (tag as { status?: unknown }).status : undefined;
        if (!valid)
          return [{ field: `tags.item:${index}.name`, message: 'Tag names must be non-empty strings.' }];
        if (status !== 'active' && status !== 'inactive') {
          return [
            {
              field: `tags.item:${index}.status`,
              message: 'Data presented is not one of the accepted values: active, inactive.',
            },
          ];
        }
        return [];
      });
      if (problems.length > 0) throw invalid(problems);
      for (const { name, status } of tags as { name: string; status: string }[])
        setTag(ctx.world, audience, member, name.trim(), status === 'active');
      member.lastChanged = wholeSeconds();
      return NO_CONTENT;
    },
  },
];

/** Makes the tag `name` active or inactive on `member`, creating the tag (a static segment) on first use. */
export function setTag(
  world: { serial(): number },
  audience: Audience,
  member: Member,
  name: string,
  active: boolean,
): void {
  let tag = [...audience.segments.values()].find(
    (segment) => segment.type === 'static' && segment.name.toLowerCase() === name.toLowerCase(),
  );
  if (!tag && !active) return;
  if (!tag) {
    const now = wholeSeconds();
    tag = { id: world.serial(), name, type: 'static', createdAt: now, updatedAt: now };
    audience.segments.set(tag.id, tag);
  }
  if (active) member.tagIds.add(tag.id);
  else member.tagIds.delete(tag.id);
}

function recordDestructive(ctx: ApiContext, method: string, path: string): void {
  ctx.account.destructive.push({ method, path, via: ctx.via, at: new Date() });
}
