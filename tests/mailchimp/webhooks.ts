/**
 * Audience webhooks: `GET/POST /lists/{list_id}/webhooks`, `GET/PATCH/DELETE .../webhooks/{id}`.
 * On POST Mailchimp checks the URL with a GET and refuses the webhook unless it answers 200. Events go
 * out as `application/x-www-form-urlencoded` POSTs (`type`, `fired_at` as `YYYY-MM-DD HH:MM:SS`,
 * `data[...]` in PHP bracket form), one per webhook whose event and source are both enabled. A
 * contact archived or deleted permanently goes out as `unsubscribe` with `data[action]=delete`.
 */
import { collection, isObject, NO_CONTENT, objectBody, ok, type Route } from './api.ts';
import { audienceParam } from './merge-fields.ts';
import { invalid, notFound } from './problems.ts';
import { type Audience, hex, type Member, type Webhook, type World } from './state.ts';

const EVENTS = ['subscribe', 'unsubscribe', 'profile', 'cleaned', 'upemail', 'campaign'];
const SOURCES = ['user', 'admin', 'api'];
const CHECK_TIMEOUT_MS = 5000;
const USER_AGENT = 'MailChimp';

function webhookView(webhook: Webhook, audience: Audience): Record<string, unknown> {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    sources: webhook.sources,
    list_id: audience.id,
  };
}

/** Flags from a body object: the names given, each true only when sent as `true`. */
function flags(raw: unknown, names: string[], previous?: Record<string, boolean>): Record<string, boolean> {
  const given = isObject(raw) ? raw : {};
  return Object.fromEntries(
    names.map((name) => [name, name in given ? given[name] === true : (previous?.[name] ?? false)]),
  );
}

/** Whether `url` answers a GET with 200 (Mailchimp's check before saving a webhook). */
async function answersGet(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, {
      headers: { 'user-agent': USER_AGENT },
      redirect: 'manual',
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    return response.status === 200;
  } catch {
    return false;
  }
}

function webhookParam(audience: Audience, id: string | undefined): Webhook {
  const webhook = audience.webhooks.get(id ?? '');
  if (!webhook) throw notFound();
  return webhook;
}

export const webhookRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/lists/{list_id}/webhooks',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      return ok(
        collection(
          request.query,
          'webhooks',
          [...audience.webhooks.values()],
          (hook) => webhookView(hook, audience),
          { list_id: audience.id },
        ),
      );
    },
  },
  {
    method: 'GET',
    pattern: '/lists/{list_id}/webhooks/{webhook_id}',
    handler: (ctx, _request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      return ok(webhookView(webhookParam(audience, params.webhook_id), audience));
    },
  },
  {
    method: 'POST',
    pattern: '/lists/{list_id}/webhooks',
    handler: async (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const body = objectBody(request);
      if (typeof body.url !== 'string' || body.url === '')
        throw invalid([{ field: '', message: 'Required fields were not provided: url' }]);
      let parsed: URL | undefined;
      try {
        parsed = new URL(body.url);
      } catch {
        parsed = undefined;
      }
      if (!parsed || !/^https?:$/.test(parsed.protocol))
        throw invalid([{ field: 'url', message: 'This value is not a valid URL.' }]);
      if (!(await answersGet(body.url))) {
        throw invalid(
          [{ field: 'url', message: 'The URL did not return a 200 response to a GET request.' }],
          `We couldn't verify the URL is working. Please double-check and try again. URL: ${body.url}`,
        );
      }
      const webhook: Webhook = {
        id: hex(10),
        url: body.url,
        events: flags(body.events, EVENTS),
        sources: flags(body.sources, SOURCES),
      };
      audience.webhooks.set(webhook.id, webhook);
      return ok(webhookView(webhook, audience));
    },
  },
  {
    method: 'PATCH',
    pattern: '/lists/{list_id}/webhooks/{webhook_id}',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const webhook = webhookParam(audience, params.webhook_id);
      const body = objectBody(request);
      if (typeof body.url === 'string') webhook.url = body.url;
      webhook.events = flags(body.events, EVENTS, webhook.events);
      webhook.sources = flags(body.sources, SOURCES, webhook.sources);
      return ok(webhookView(webhook, audience));
    },
  },
  {
    method: 'DELETE',
    pattern: '/lists/{list_id}/webhooks/{webhook_id}',
    handler: (ctx, _request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      audience.webhooks.delete(webhookParam(audience, params.webhook_id).id);
      return NO_CONTENT;
    },
  },
];

/** `2026-01-24 15:30:00`: the webhook's `fired_at` shape (not ISO 8601). */
function firedAt(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** The fields every member event carries: who, in which audience, with their merge values. */
function memberForm(type: string, audience: Audience, member: Member, at: Date): URLSearchParams {
  const form = new URLSearchParams();
  form.append('type', type);
  form.append('fired_at', firedAt(at));
  form.append('data[id]', member.uniqueEmailId);
  form.append('data[email]', member.email);
  form.append('data[email_type]', member.emailType);
  form.append('data[ip_opt]', '127.0.0.1');
  form.append('data[web_id]', String(member.webId));
  form.append('data[list_id]', audience.id);
  form.append('data[merges][EMAIL]', member.email);
  for (const field of audience.mergeFields) {
    const value = member.mergeFields[field.tag];
    if (value !== undefined && typeof value !== 'object')
      form.append(`data[merges][${field.tag}]`, String(value));
  }
  return form;
}

/** The form body of a subscribe event for `member`. */
export function subscribeForm(audience: Audience, member: Member, at = new Date()): URLSearchParams {
  const form = memberForm('subscribe', audience, member, at);
  form.append('data[ip_signup]', '127.0.0.1');
  return form;
}

/**
 * How a contact left: `unsub` (they, or an admin, unsubscribed them) or `delete` (archived or
 * deleted permanently, by an admin or through the API). Mailchimp sends both as `unsubscribe`.
 */
export type UnsubscribeAction = 'unsub' | 'delete';

/** The form body of an unsubscribe event: `data[action]` says whether the contact was deleted. */
export function unsubscribeForm(
  audience: Audience,
  member: Member,
  action: UnsubscribeAction,
  at = new Date(),
): URLSearchParams {
  const form = memberForm('unsubscribe', audience, member, at);
  form.append('data[action]', action);
  form.append('data[reason]', 'manual');
  return form;
}

/** Posts a subscribe event to every webhook of `audience` listening to it from `source`; records each delivery. */
export function notifySubscribe(
  world: World,
  audience: Audience,
  member: Member,
  source: string,
): Promise<void> {
  return notify(world, audience, 'subscribe', subscribeForm(audience, member), source);
}

/** Posts an unsubscribe event (`action`) to every webhook of `audience` listening to unsubscribes from `source`. */
export function notifyUnsubscribe(
  world: World,
  audience: Audience,
  member: Member,
  action: UnsubscribeAction,
  source: string,
): Promise<void> {
  return notify(world, audience, 'unsubscribe', unsubscribeForm(audience, member, action), source);
}

async function notify(
  world: World,
  audience: Audience,
  type: string,
  form: URLSearchParams,
  source: string,
): Promise<void> {
  const hooks = [...audience.webhooks.values()].filter((hook) => hook.events[type] && hook.sources[source]);
  const body = form.toString();
  await Promise.all(
    hooks.map(async (hook) => {
      const delivery = { url: hook.url, listId: audience.id, type, body } as World['deliveries'][number];
      world.deliveries.push(delivery);
      try {
        const response = await fetch(hook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': USER_AGENT },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer().catch(() => undefined);
        delivery.status = response.status;
      } catch (error) {
        delivery.error = error instanceof Error ? error.message : String(error);
      }
    }),
  );
}
