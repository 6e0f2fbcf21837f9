/**
 * Segments: `GET/POST /lists/{list_id}/segments`, `GET .../segments/{segment_id}` and
 * `GET .../segments/{segment_id}/members`, evaluated from the conditions each time. Condition types
 * and operators as Mailchimp's "segment condition schemas" give them: TextMerge (text and number merge
 * fields: is, not, contains, notcontain, starts, ends, greater, less, blank, blank_not), SelectMerge,
 * DateMerge (is, not, less, greater, blank, blank_not), EmailAddress and StaticSegment (tags:
 * static_is, static_not). Other condition types are refused with 400 rather than evaluated wrongly.
 */
import { type ApiContext, collection, isObject, objectBody, ok, type Route } from './api.ts';
import { memberView, setTag } from './members.ts';
import { audienceParam } from './merge-fields.ts';
import { type FieldProblem, invalid, notFound } from './problems.ts';
import {
  type Audience,
  type Member,
  mcTime,
  type Segment,
  type SegmentOptions,
  subscriberHash,
  wholeSeconds,
} from './state.ts';

const OPERATORS: Record<string, string[]> = {
  TextMerge: [
    'is',
    'not',
    'contains',
    'notcontain',
    'starts',
    'ends',
    'greater',
    'less',
    'blank',
    'blank_not',
  ],
  SelectMerge: ['is', 'not', 'contains', 'notcontain', 'blank', 'blank_not'],
  DateMerge: ['is', 'not', 'less', 'greater', 'blank', 'blank_not'],
  EmailAddress: ['is', 'not', 'contains', 'notcontain', 'starts', 'ends', 'greater', 'less'],
  StaticSegment: ['static_is', 'static_not'],
};

export function segmentView(segment: Segment, audience: Audience): Record<string, unknown> {
  return {
    id: segment.id,
    name: segment.name,
    member_count: segmentMembers(audience, segment).length,
    type: segment.type,
    created_at: mcTime(segment.createdAt),
    updated_at: mcTime(segment.updatedAt),
    ...(segment.options ? { options: segment.options } : {}),
    list_id: audience.id,
  };
}

/** The subscribed members of `audience` in `segment` (tags: members carrying it). */
export function segmentMembers(
  audience: Audience,
  segment: Segment,
  statuses: string[] = ['subscribed'],
): Member[] {
  return [...audience.members.values()].filter(
    (member) =>
      statuses.includes(member.status) &&
      (segment.type === 'static'
        ? member.tagIds.has(segment.id)
        : matches(audience, member, segment.options)),
  );
}

/** Whether `member` meets `options` (`match: all` → every condition, `any` → one of them). */
export function matches(audience: Audience, member: Member, options: SegmentOptions | undefined): boolean {
  if (!options || options.conditions.length === 0) return true;
  const results = options.conditions.map((condition) => conditionHolds(audience, member, condition));
  return options.match === 'any' ? results.some(Boolean) : results.every(Boolean);
}

function conditionHolds(audience: Audience, member: Member, condition: Record<string, unknown>): boolean {
  const op = String(condition.op);
  const value = condition.value;
  switch (condition.condition_type) {
    case 'StaticSegment':
      return member.tagIds.has(Number(value)) === (op === 'static_is');
    case 'EmailAddress':
      return compareText(member.email, op, value, false);
    case 'DateMerge':
      return compareDate(member.mergeFields[String(condition.field)], op, value);
    default: {
      const tag = String(condition.field);
      const field = audience.mergeFields.find((candidate) => candidate.tag === tag);
      return compareText(member.mergeFields[tag], op, value, field?.type === 'number');
    }
  }
}

function blank(actual: unknown): boolean {
  return actual === undefined || actual === null || actual === '';
}

function compareText(actual: unknown, op: string, expected: unknown, numeric: boolean): boolean {
  if (op === 'blank') return blank(actual);
  if (op === 'blank_not') return !blank(actual);
  if (blank(actual)) return op === 'not' || op === 'notcontain';
  if (numeric || op === 'greater' || op === 'less') {
    const [a, b] = [Number(actual), Number(expected)];
    if (Number.isFinite(a) && Number.isFinite(b)) {
      if (op === 'is') return a === b;
      if (op === 'not') return a !== b;
      if (op === 'greater') return a > b;
      if (op === 'less') return a < b;
    }
  }
  const [a, b] = [String(actual).toLowerCase(), String(expected ?? '').toLowerCase()];
  const outcomes: Record<string, boolean> = {
    is: a === b,
    not: a !== b,
    contains: a.includes(b),
    notcontain: !a.includes(b),
    starts: a.startsWith(b),
    ends: a.endsWith(b),
    greater: a > b,
    less: a < b,
  };
  return outcomes[op] ?? false;
}

/** Date conditions compare calendar days; values may be YYYY-MM-DD or MM/DD/YYYY (the docs' example). */
function compareDate(actual: unknown, op: string, expected: unknown): boolean {
  if (op === 'blank') return blank(actual);
  if (op === 'blank_not') return !blank(actual);
  if (blank(actual)) return op === 'not';
  const [a, b] = [dayOf(actual), dayOf(expected)];
  if (!a || !b) return false;
  return { is: a === b, not: a !== b, less: a < b, greater: a > b }[op] ?? false;
}

function dayOf(value: unknown): string | undefined {
  const text = String(value ?? '');
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) return text.slice(0, 10);
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  return us ? `${us[3]}-${us[1]?.padStart(2, '0')}-${us[2]?.padStart(2, '0')}` : undefined;
}

/** Validates segment `options` as the docs describe them; the problems, or the options. */
export function checkOptions(
  audience: Audience,
  raw: unknown,
  field: string,
): SegmentOptions | FieldProblem[] {
  if (!isObject(raw)) return [{ field, message: 'Schema describes object' }];
  const problems: FieldProblem[] = [];
  if (raw.match !== 'any' && raw.match !== 'all') {
    problems.push({
      field: `${field}.match`,
      message: 'Data presented is not one of the accepted values: any, all.',
    });
  }
  const conditions = Array.isArray(raw.conditions) ? raw.conditions : [];
  if (!Array.isArray(raw.conditions))
    problems.push({ field: `${field}.conditions`, message: 'Schema describes array' });
  conditions.forEach((condition, index) => {
    const at = `${field}.conditions.item:${index}`;
    const type = isObject(condition) ? String(condition.condition_type) : '';
    const ops = OPERATORS[type];
    if (!isObject(condition) || !ops) {
      problems.push({
        field: `${at}.condition_type`,
        message: `Condition type "${type}" is not supported by this emulator.`,
      });
      return;
    }
    if (!ops.includes(String(condition.op))) {
      problems.push({
        field: `${at}.op`,
        message: `Data presented is not one of the accepted values: ${ops.join(', ')}.`,
      });
    }
    const mergeTag = String(condition.field);
    if (type.endsWith('Merge') && !audience.mergeFields.some((merge) => merge.tag === mergeTag)) {
      problems.push({
        field: `${at}.field`,
        message: `Merge field "${mergeTag}" does not exist on this list.`,
      });
    }
  });
  return problems.length > 0
    ? problems
    : { match: raw.match as 'any' | 'all', conditions: conditions as Record<string, unknown>[] };
}

function segmentParam(audience: Audience, raw: string | undefined): Segment {
  const segment = audience.segments.get(Number(raw));
  if (!segment) throw notFound();
  return segment;
}

export const segmentRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/lists/{list_id}/segments',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const type = request.query.get('type');
      const segments = [...audience.segments.values()].filter((segment) => !type || segment.type === type);
      return ok(
        collection(request.query, 'segments', segments, (segment) => segmentView(segment, audience), {
          list_id: audience.id,
        }),
      );
    },
  },
  {
    method: 'GET',
    pattern: '/lists/{list_id}/segments/{segment_id}',
    handler: (ctx, _request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      return ok(segmentView(segmentParam(audience, params.segment_id), audience));
    },
  },
  {
    method: 'GET',
    pattern: '/lists/{list_id}/segments/{segment_id}/members',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const segment = segmentParam(audience, params.segment_id);
      const statuses = ['subscribed'];
      if (request.query.get('include_cleaned') === 'true') statuses.push('cleaned');
      if (request.query.get('include_transactional') === 'true') statuses.push('transactional');
      if (request.query.get('include_unsubscribed') === 'true') statuses.push('unsubscribed');
      const members = segmentMembers(audience, segment, statuses);
      return ok(collection(request.query, 'members', members, (member) => memberView(member, audience)));
    },
  },
  {
    method: 'POST',
    pattern: '/lists/{list_id}/segments',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      return ok(segmentView(createSegment(ctx, audience, objectBody(request)), audience));
    },
  },
];

function createSegment(ctx: ApiContext, audience: Audience, body: Record<string, unknown>): Segment {
  if (typeof body.name !== 'string' || body.name.trim() === '') {
    throw invalid([{ field: '', message: 'Required fields were not provided: name' }]);
  }
  if (body.static_segment !== undefined && body.options !== undefined) {
    throw invalid([
      { field: 'options', message: 'static_segment cannot be provided with the options field.' },
    ]);
  }
  const now = wholeSeconds();
  if (Array.isArray(body.static_segment)) {
    const id = ctx.world.serial();
    const segment: Segment = { id, name: body.name, type: 'static', createdAt: now, updatedAt: now };
    audience.segments.set(id, segment);
    for (const email of body.static_segment) {
      const member = audience.members.get(subscriberHash(String(email)));
      if (member) setTag(ctx.world, audience, member, segment.name, true);
    }
    return segment;
  }
  const options = checkOptions(audience, body.options ?? { match: 'all', conditions: [] }, 'options');
  if (Array.isArray(options)) throw invalid(options);
  const segment: Segment = {
    id: ctx.world.serial(),
    name: body.name,
    type: 'saved',
    createdAt: now,
    updatedAt: now,
    options,
  };
  audience.segments.set(segment.id, segment);
  return segment;
}
