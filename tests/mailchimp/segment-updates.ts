/**
 * Changing segments: `PATCH /lists/{list_id}/segments/{segment_id}` (a new name, and new conditions
 * for a saved segment or the whole member list of a static one), `POST .../segments/{segment_id}`
 * (batch add or remove members of a static segment, at most 500 each) and `DELETE` (the segment
 * goes; a static segment is a tag, so its members lose that tag, and no contact is touched).
 */
import { NO_CONTENT, objectBody, ok, type Route } from './api.ts';
import { memberView } from './members.ts';
import { audienceParam } from './merge-fields.ts';
import { invalid, notFound } from './problems.ts';
import { checkOptions, segmentView } from './segments.ts';
import { type Audience, type Member, type Segment, subscriberHash, wholeSeconds } from './state.ts';

/** Mailchimp's most members per batch add or remove. */
const BATCH_LIMIT = 500;

function segmentOf(audience: Audience, raw: string | undefined): Segment {
  const segment = audience.segments.get(Number(raw));
  if (!segment) throw notFound();
  return segment;
}

/** The live members with these addresses, and the addresses that are none. */
function membersByEmail(audience: Audience, emails: readonly unknown[]) {
  const found: Member[] = [];
  const missing: string[] = [];
  for (const email of emails) {
    const member = audience.members.get(subscriberHash(String(email)));
    if (member && member.status !== 'archived') found.push(member);
    else missing.push(String(email));
  }
  return { found, missing };
}

function emailArray(value: unknown, field: string, limit = Number.POSITIVE_INFINITY): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid([{ field, message: 'Schema describes array' }]);
  if (value.length > limit) {
    throw invalid([{ field, message: `A maximum of ${limit} members can be sent.` }]);
  }
  return value;
}

export const segmentUpdateRoutes: Route[] = [
  {
    method: 'PATCH',
    pattern: '/lists/{list_id}/segments/{segment_id}',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const segment = segmentOf(audience, params.segment_id);
      const body = objectBody(request);
      if (typeof body.name !== 'string' || body.name.trim() === '')
        throw invalid([{ field: '', message: 'Required fields were not provided: name' }]);
      if (body.static_segment !== undefined && body.options !== undefined) {
        throw invalid([
          { field: 'options', message: 'static_segment cannot be provided with the options field.' },
        ]);
      }
      // A segment keeps its kind: conditions belong to saved ones, a member list to static ones.
      if (body.options !== undefined && segment.type === 'static')
        throw invalid([{ field: 'options', message: 'Static segments do not have conditions.' }]);
      if (body.static_segment !== undefined && segment.type !== 'static') {
        throw invalid([{ field: 'static_segment', message: 'Only a static segment has a member list.' }]);
      }
      if (body.options !== undefined) {
        const options = checkOptions(audience, body.options, 'options');
        if (Array.isArray(options)) throw invalid(options);
        segment.options = options;
      }
      if (body.static_segment !== undefined) {
        const { found } = membersByEmail(audience, emailArray(body.static_segment, 'static_segment'));
        const keep = new Set(found.map((member) => member.hash));
        for (const member of audience.members.values()) {
          if (!keep.has(member.hash)) member.tagIds.delete(segment.id);
        }
        for (const member of found) member.tagIds.add(segment.id);
      }
      segment.name = body.name;
      segment.updatedAt = wholeSeconds();
      return ok(segmentView(segment, audience));
    },
  },
  {
    method: 'POST',
    pattern: '/lists/{list_id}/segments/{segment_id}',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const segment = segmentOf(audience, params.segment_id);
      if (segment.type !== 'static') {
        throw invalid([
          { field: '', message: 'Members can be added to or removed from static segments only.' },
        ]);
      }
      const body = objectBody(request);
      const adding = membersByEmail(audience, emailArray(body.members_to_add, 'members_to_add', BATCH_LIMIT));
      const removing = membersByEmail(
        audience,
        emailArray(body.members_to_remove, 'members_to_remove', BATCH_LIMIT),
      );
      for (const member of adding.found) member.tagIds.add(segment.id);
      for (const member of removing.found) member.tagIds.delete(segment.id);
      const errors = [
        ...(adding.missing.length > 0
          ? [{ email_addresses: adding.missing, error: 'Email addresses are not list members.' }]
          : []),
        ...(removing.missing.length > 0
          ? [{ email_addresses: removing.missing, error: 'Email addresses are not list members.' }]
          : []),
      ];
      segment.updatedAt = wholeSeconds();
      return ok({
        members_added: adding.found.map((member) => memberView(member, audience)),
        members_removed: removing.found.map((member) => memberView(member, audience)),
        errors,
        total_added: adding.found.length,
        total_removed: removing.found.length,
        error_count: errors.length,
      });
    },
  },
  {
    method: 'DELETE',
    pattern: '/lists/{list_id}/segments/{segment_id}',
    handler: (ctx, _request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const segment = segmentOf(audience, params.segment_id);
      audience.segments.delete(segment.id);
      for (const member of audience.members.values()) member.tagIds.delete(segment.id);
      return NO_CONTENT;
    },
  },
];
