/**
 * An emulator of Mailchimp's Marketing API v3 and its OAuth 2 endpoints: a real HTTP server on
 * loopback, for testing Mailvet's Mailchimp integration where Mailchimp cannot be
 * reached. The data centre is a path segment (`/{dc}/3.0/...`) where Mailchimp uses the host
 * `{dc}.api.mailchimp.com`. Routes: lists.ts (root, ping, lists, batch member update), members.ts,
 * merge-fields.ts, segments.ts, segment-updates.ts, campaigns.ts, webhooks.ts, batches.ts; OAuth in
 * oauth.ts.
 *
 * Checked against Mailchimp's reference and guides (and its OpenAPI description): Basic auth with any
 * user and the key as password; 10 simultaneous connections per key, the 11th answered 429;
 * problem+json errors and glossary titles; `count` (default 10, max 1000), `offset`, `fields` /
 * `exclude_fields` with dot paths, `total_items`; member `id` = MD5 of the lower-cased address, the
 * hash parameter also accepting the address; members' `status` and `since_last_changed` filters;
 * PUT needs `email_address` and `status_if_new` for a new member; DELETE archives, delete-permanent
 * deletes; batch member update ≤ 500 with `new_members`/`updated_members`/`errors` (error codes
 * ERROR_CONTACT_EXISTS, ERROR_GENERIC) and `total_created`/`total_updated`/`error_count`; new
 * audiences have FNAME, LNAME, ADDRESS, PHONE; merge-field types; tags → 204; segment condition types
 * and operators (a number merge field uses TextMerge with `greater`/`less`/`is` — there is no
 * `greaterthan`/`lessthan`); static segments are tags; a segment's PATCH takes `options` or
 * `static_segment` (never both; an empty `static_segment` empties it) and its batch add/remove
 * (`POST .../segments/{id}`) at most 500 `members_to_add` / `members_to_remove`, addresses that are no
 * list member ignored, answering `members_added`, `members_removed`, `errors`, `total_added`,
 * `total_removed`, `error_count`; campaign `status` values (`save` is a draft) and
 * `recipients.segment_opts` (`saved_segment_id`, or `match` and `conditions`); batch statuses and
 * the `{status_code, operation_id, response}` archive, with `response` a JSON string (as client
 * libraries parse it); webhook events/sources flags, the GET check on creation, form-encoded events
 * with `fired_at` as `Y-m-d H:i:s`; OAuth endpoints, `expires_in: 0`, `Authorization: OAuth` on
 * metadata; POST creations answer 200, not 201.
 *
 * Not confirmed, assumed here:
 * - A key on another data centre's path → 401 "API Key Invalid" (the glossary also lists 403
 *   WrongDatacenter). OAuth tokens are accepted on the API as `Bearer` or `OAuth`; Basic needs the key
 *   as the password (an empty password with the key as user name is refused).
 * - No Retry-After on the concurrency 429 (not documented); injected 429s send it when asked. The
 *   11th request counts in `maxInFlight`, so a client that overshoots shows a peak of 11.
 * - Unknown merge tags on writes are refused (400, field named); Mailchimp may ignore them. Date merge
 *   values: YYYY-MM-DD or the field's `date_format` (MM/DD/YYYY by default), stored and returned as
 *   YYYY-MM-DD; numbers accept numeric strings and come back as numbers; error messages are guesses
 *   except "Please enter a value" and "Your merge fields were invalid.".
 * - `since_last_changed` is inclusive; timestamps have whole seconds; every successful write (merge
 *   fields, status, tags) moves `last_changed`. Archived members are left out unless
 *   `status=archived`. `count` over 1000 is a 400. List stats are live (Mailchimp caches them).
 * - Tag names match case-insensitively. Segment member counts and campaign `recipient_count` are
 *   computed live (Mailchimp snapshots them; a changed saved segment may not re-count at once).
 *   Condition types other than TextMerge, SelectMerge, DateMerge, EmailAddress, StaticSegment → 400.
 * - Campaign PATCH: the reference marks `settings` (and `recipients.list_id`) required, and both are
 *   enforced, though Mailchimp may not insist (a client that sends them works either way); once the
 *   campaign is not `save` → 400 "Bad Request" (wording unknown). Unsegmented campaigns have no
 *   `segment_opts`. `_links` are left out of every document; unknown `fields` names are ignored.
 * - Segment PATCH requires `name`; a segment keeps its kind (`options` on a static one, or
 *   `static_segment` on a saved one → 400). Batch add/remove on a saved segment → 400; addresses
 *   that are no list member are listed in `errors` (message guessed). `DELETE` of a segment → 204, and
 *   a static one's tag leaves its members. Segment members are returned as list members are (with
 *   `tags`), though the reference's segment-member document has no `tags`. Campaign states kept:
 *   `save`, `schedule`, `sending`, `sent`; a campaign to a tag has `static_is` on it as its condition.
 * - Webhook URL check: a GET within 5 s answering exactly 200, else 400 naming `url`. Omitted
 *   `events`/`sources` flags are false; duplicate URLs are allowed; no retries of failed deliveries;
 *   `data[id]` is the member's 10-hex `unique_email_id` (as Mailchimp's examples show 10 hex, not the
 *   MD5). API-created subscribed members fire `subscribe` with source `api`; nothing else fires.
 * - Batch archive layout: a folder named after the batch, JSON files of ≤ 500 results each; `response`
 *   of a 204 is "". Operation paths may omit the leading `/` or carry `/3.0`. Up to 50 operations per
 *   step, `batchStepMs` apart; batch operations do not count as requests (see `batchOperations`).
 * - OAuth: the token endpoint answers 401 `invalid_client`, 400 `invalid_grant` (codes are one-time and
 *   bound to the redirect_uri); metadata refuses `Bearer`; `login_id`/`user_id` are numbers; metadata's
 *   `api_endpoint` is `http://127.0.0.1:<port>/<dc>` (Mailchimp: `https://<dc>.api.mailchimp.com`),
 *   so `${api_endpoint}/3.0` is the API base in both. Which account authorizes: `oauthLoginAs`, else
 *   the first account added.
 */
import { emulatorControls } from './control.ts';
import type { OAuthClient } from './oauth.ts';
import { startApiServer } from './server.ts';
import { World } from './state.ts';
import type { MailchimpEmulator } from './types.ts';

export { CONCURRENCY_LIMIT } from './server.ts';
export type * from './types.ts';

/**
 * Starts the emulator on 127.0.0.1 (`port`, a free one by default); `oauth` enables the OAuth
 * endpoints for that client.
 */
export async function startMailchimpEmulator(
  options: { oauth?: OAuthClient; port?: number } = {},
): Promise<MailchimpEmulator> {
  const world = new World();
  const server = await startApiServer(world, options.oauth, options.port);
  const controls = emulatorControls(world);
  return Object.defineProperties(
    {
      ...controls,
      baseUrlTemplate: `${world.origin}/{dc}/3.0`,
      oauthBase: `${world.origin}/oauth2`,
      idle: () => server.idle(),
      close: () => server.close(),
    },
    {
      latencyMs: {
        get: () => server.latencyMs,
        set: (value: number) => {
          server.latencyMs = value;
        },
        enumerable: true,
      },
      batchStepMs: {
        get: () => world.batchStepMs,
        set: (value: number) => {
          world.batchStepMs = value;
        },
        enumerable: true,
      },
    },
  ) as MailchimpEmulator;
}
