/**
 * The emulator's test-side controls: seeding accounts, audiences, members, merge fields and
 * campaigns; revoking keys and tokens; faults; statistics; signups that fire webhooks; and read access
 * to the state for assertions (copies, so tests cannot change the emulator by accident).
 */

import { newMember, setTag, tagsOf } from './members.ts';
import { addMergeField, checkMergeValues } from './merge-fields.ts';
import { segmentMembers } from './segments.ts';
import {
  type Account,
  type Audience,
  defaultMergeFields,
  hex,
  subscriberHash,
  type World,
  wholeSeconds,
} from './state.ts';
import type { EmulatedCampaign, EmulatedMember, MailchimpEmulator, Ref } from './types.ts';
import { notifySubscribe, notifyUnsubscribe } from './webhooks.ts';

/** What `startMailchimpEmulator` adds to the server: everything but URLs, timing, idle and close. */
export type EmulatorControls = Omit<
  MailchimpEmulator,
  'baseUrlTemplate' | 'oauthBase' | 'latencyMs' | 'batchStepMs' | 'idle' | 'close'
>;

/** The controls over `world`. */
export function emulatorControls(world: World): EmulatorControls {
  const accountOf = (ref: Ref): Account => {
    const account = world.accounts.get(ref.id);
    if (!account) throw new Error(`no emulated account ${ref.id}`);
    return account;
  };
  const audienceOf = (ref: Ref): Audience => {
    const audience = world.audiences.get(ref.id);
    if (!audience) throw new Error(`no emulated audience ${ref.id}`);
    return audience;
  };
  const memberView = (audience: Audience, email: string): EmulatedMember | undefined => {
    const member = audience.members.get(subscriberHash(email));
    if (!member) return undefined;
    const tags = tagsOf(member, audience).map((tag) => tag.name);
    return {
      id: member.hash,
      email: member.email,
      status: member.status,
      mergeFields: { ...member.mergeFields },
      tags,
      lastChanged: member.lastChanged,
    };
  };
  const seedMergeValues = (audience: Audience, values: Record<string, unknown> | undefined) => {
    const checked = checkMergeValues(audience, values ?? {}, false);
    if ('problems' in checked) throw new Error(`bad merge fields: ${JSON.stringify(checked.problems)}`);
    return checked.values;
  };
  const campaignView = (id: string): EmulatedCampaign => {
    const campaign = world.campaigns.get(id);
    if (!campaign) throw new Error(`no emulated campaign ${id}`);
    const { listId, title, status, segmentOpts } = campaign;
    return {
      id,
      listId,
      title,
      status,
      ...(segmentOpts?.saved_segment_id === undefined
        ? {}
        : { savedSegmentId: segmentOpts.saved_segment_id }),
      ...(segmentOpts?.conditions === undefined
        ? {}
        : {
            segment: {
              match: segmentOpts.match === 'any' ? 'any' : 'all',
              conditions: structuredClone(segmentOpts.conditions),
            },
          }),
    };
  };

  return {
    baseUrl: (account) => world.apiBase(accountOf(account).dc),
    addAccount({ dc = 'us21', name = 'Emulated Account' } = {}) {
      const account: Account = {
        id: hex(25),
        dc,
        apiKey: `${hex(32)}-${dc}`,
        name,
        loginId: String(world.serial() * 1000 + 7),
        email: `owner-${world.accounts.size + 1}@example.com`,
        keyRevoked: false,
        createdAt: wholeSeconds(),
        inFlight: 0,
        maxInFlight: 0,
        requests: 0,
        byRoute: {},
        batchOperations: 0,
        faults: [],
        destructive: [],
      };
      world.accounts.set(account.id, account);
      return { id: account.id, dc, apiKey: account.apiKey, name };
    },
    addAudience(ref, { name }) {
      const account = accountOf(ref);
      const audience: Audience = {
        id: hex(10),
        webId: world.serial(),
        name,
        accountId: account.id,
        createdAt: wholeSeconds(),
        mergeFields: defaultMergeFields(),
        nextMergeId: 5,
        members: new Map(),
        segments: new Map(),
        webhooks: new Map(),
      };
      world.audiences.set(audience.id, audience);
      return { id: audience.id, name, accountId: account.id };
    },
    addMember(ref, { email, status = 'subscribed', mergeFields, tags = [], lastChanged }) {
      const audience = audienceOf(ref);
      const member = newMember(world, email, status, 'Import');
      member.mergeFields = seedMergeValues(audience, mergeFields);
      audience.members.set(member.hash, member);
      for (const tag of tags) setTag(world, audience, member, tag, true);
      if (lastChanged) member.lastChanged = wholeSeconds(lastChanged);
      return memberView(audience, email) as EmulatedMember;
    },
    addMergeField(ref, { tag, name, type, options: fieldOptions }) {
      const field = addMergeField(audienceOf(ref), { tag, name, type, options: fieldOptions });
      return { id: field.id, tag: field.tag, name: field.name, type: field.type, options: field.options };
    },
    addCampaign(
      ref,
      { audience: audienceRef, title, savedSegmentId, segment: own, status = 'save', createdAt },
    ) {
      const account = accountOf(ref);
      const audience = audienceOf(audienceRef);
      const segment = savedSegmentId === undefined ? undefined : audience.segments.get(savedSegmentId);
      if (savedSegmentId !== undefined && !segment) throw new Error(`no segment ${savedSegmentId}`);
      const id = hex(10);
      world.campaigns.set(id, {
        id,
        webId: world.serial(),
        accountId: account.id,
        listId: audience.id,
        title,
        subjectLine: title,
        status,
        createdAt: wholeSeconds(createdAt),
        // As a PATCH to that segment leaves it (campaigns.ts): a tag's conditions are the tag.
        ...(segment
          ? {
              segmentOpts: {
                saved_segment_id: segment.id,
                match: segment.options?.match ?? 'all',
                conditions: segment.options?.conditions ?? [
                  {
                    condition_type: 'StaticSegment',
                    field: 'static_segment',
                    op: 'static_is',
                    value: segment.id,
                  },
                ],
              },
            }
          : own
            ? { segmentOpts: { match: own.match, conditions: structuredClone(own.conditions) } }
            : {}),
      });
      return campaignView(id);
    },
    revokeKey: (ref) => {
      accountOf(ref).keyRevoked = true;
    },
    revokeTokens: (ref) => {
      for (const [token, accountId] of world.tokens) if (accountId === ref.id) world.tokens.delete(token);
    },
    oauthLoginAs: (ref) => {
      world.oauthUser = ref === 'deny' ? 'deny' : accountOf(ref).id;
    },
    injectFaults: (ref, { status, count, retryAfterSeconds, method, afterHandling }) => {
      accountOf(ref).faults.push({
        status,
        remaining: count,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
        ...(method === undefined ? {} : { method }),
        ...(afterHandling === undefined ? {} : { afterHandling }),
      });
    },
    stats: (ref) => {
      const { maxInFlight, requests, byRoute, batchOperations } = accountOf(ref);
      return { maxInFlight, requests, byRoute: { ...byRoute }, batchOperations };
    },
    resetStats: (ref) => {
      Object.assign(accountOf(ref), { maxInFlight: 0, requests: 0, byRoute: {}, batchOperations: 0 });
    },
    async fireSubscribe(ref, email, { mergeFields, source = 'user' } = {}) {
      const audience = audienceOf(ref);
      const member =
        audience.members.get(subscriberHash(email)) ??
        newMember(world, email, 'subscribed', 'Hosted Signup Form');
      Object.assign(member.mergeFields, seedMergeValues(audience, mergeFields));
      member.status = 'subscribed';
      member.lastChanged = wholeSeconds();
      audience.members.set(member.hash, member);
      await notifySubscribe(world, audience, member, source);
    },
    async fireUnsubscribe(ref, email, { source = 'user' } = {}) {
      const audience = audienceOf(ref);
      const member = audience.members.get(subscriberHash(email));
      if (!member) throw new Error(`no member ${email}`);
      member.status = 'unsubscribed';
      member.lastChanged = wholeSeconds();
      await notifyUnsubscribe(world, audience, member, 'unsub', source);
    },
    async fireDelete(ref, email, { permanent = false, source = 'admin' } = {}) {
      const audience = audienceOf(ref);
      const member = audience.members.get(subscriberHash(email));
      if (!member) throw new Error(`no member ${email}`);
      if (permanent) audience.members.delete(member.hash);
      else {
        member.status = 'archived';
        member.lastChanged = wholeSeconds();
      }
      await notifyUnsubscribe(world, audience, member, 'delete', source);
    },
    members: (ref) => {
      const audience = audienceOf(ref);
      return [...audience.members.values()].map(
        (member) => memberView(audience, member.email) as EmulatedMember,
      );
    },
    member: (ref, email) => memberView(audienceOf(ref), email),
    segments: (ref) => {
      const audience = audienceOf(ref);
      return [...audience.segments.values()].map((segment) => ({
        id: segment.id,
        name: segment.name,
        type: segment.type,
        ...(segment.options ? { options: segment.options } : {}),
        memberEmails: segmentMembers(audience, segment).map((member) => member.email),
      }));
    },
    webhooks: (ref) => [...audienceOf(ref).webhooks.values()].map((hook) => ({ ...hook })),
    mergeFields: (ref) =>
      audienceOf(ref).mergeFields.map(({ id, tag, name, type, options: fieldOptions }) => ({
        id,
        tag,
        name,
        type,
        options: fieldOptions,
      })),
    campaign: (ref) => campaignView(ref.id),
    destructiveCalls: (ref) => [...accountOf(ref).destructive],
    webhookDeliveries: () => [...world.deliveries],
  };
}
