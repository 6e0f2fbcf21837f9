/**
 * The emulator's contact routes: list (100 a page), batch read and update (100 a request; an
 * unknown id is a 207's error, an invalid value fails the batch), search (200 a page, 10,000 in
 * all), contact properties and property groups.
 */
import { HsError, invalid } from './errors.ts';
import {
  contactView,
  inputsOf,
  limitOf,
  liveContacts,
  page,
  type Route,
  type RouteContext,
  route,
} from './route-kit.ts';
import type { Contact } from './state.ts';

function writeProperties(
  ctx: RouteContext,
  contact: Contact,
  properties: Record<string, unknown>,
): HsError | null {
  for (const [name, value] of Object.entries(properties)) {
    const definition = ctx.portal.properties.get(name);
    if (definition === undefined)
      return invalid(`Property "${name}" does not exist`, { subCategory: 'PROPERTY_DOESNT_EXIST' });
    if (
      name === 'hs_email_optout' ||
      name === 'hs_object_id' ||
      name === 'createdate' ||
      name === 'lastmodifieddate'
    )
      return invalid(`"${name}" is a read only property; its value cannot be set.`, {
        subCategory: 'READ_ONLY_VALUE',
      });
    const text = value === null ? '' : String(value);
    if (
      definition.type === 'enumeration' &&
      text !== '' &&
      !definition.options?.some((o) => o.value === text)
    )
      return invalid(
        `${text} was not one of the allowed options: ${definition.options?.map((o) => o.value).join(', ')}`,
        {
          subCategory: 'INVALID_OPTION',
        },
      );
    if (definition.type === 'number' && text !== '' && !Number.isFinite(Number(text)))
      return invalid(`${text} is not a valid number`, { subCategory: 'INVALID_INTEGER' });
    if (definition.type === 'date' && text !== '') {
      const ms = Number(text);
      if (!Number.isInteger(ms) || ms % 86_400_000 !== 0)
        return invalid(`${text} is at not midnight UTC for a date property`, { subCategory: 'INVALID_DATE' });
    }
  }
  for (const [name, value] of Object.entries(properties)) {
    const text = value === null ? '' : String(value);
    // A date is kept and read back as its day, as HubSpot answers it.
    const date = ctx.portal.properties.get(name)?.type === 'date' && text !== '';
    contact.properties[name] = date ? new Date(Number(text)).toISOString().slice(0, 10) : text;
  }
  const at = ctx.now().toISOString();
  contact.properties.lastmodifieddate = at;
  contact.updatedAt = at;
  contact.writes += 1;
  return null;
}

/** A DYNAMIC list's filter branch, as far as Mailvet's score lists use it (NUMBER filters, OR of ANDs). */
function searchFilter(
  contact: Contact,
  filter: { propertyName?: string; operator?: string; value?: unknown },
): boolean {
  const raw = contact.properties[filter.propertyName ?? ''] ?? null;
  const value = String(filter.value ?? '');
  const compare = (a: string, b: string) => {
    const an = Number(a);
    const bn = Number(b);
    if (Number.isFinite(an) && Number.isFinite(bn) && a !== '' && b !== '') return an - bn;
    // Date-times compare by instant; HubSpot takes epoch milliseconds or ISO text.
    const at = Date.parse(a);
    const bt = Number.isFinite(Number(b)) ? Number(b) : Date.parse(b);
    return at - bt;
  };
  switch (filter.operator) {
    case 'EQ':
      return raw === value;
    case 'NEQ':
      return raw !== value;
    case 'HAS_PROPERTY':
      return raw !== null && raw !== '';
    case 'NOT_HAS_PROPERTY':
      return raw === null || raw === '';
    case 'GT':
      return raw !== null && compare(raw, value) > 0;
    case 'GTE':
      return raw !== null && compare(raw, value) >= 0;
    case 'LT':
      return raw !== null && compare(raw, value) < 0;
    case 'LTE':
      return raw !== null && compare(raw, value) <= 0;
    default:
      throw invalid(`Unknown operator ${filter.operator}`);
  }
}

export const CONTACT_ROUTES: Route[] = [
  route('GET', /^\/crm\/v3\/objects\/contacts$/, 'crm.objects.contacts.read', (ctx, request) => {
    const limit = limitOf(request.query.get('limit'), 10, 100);
    const properties = (request.query.get('properties') ?? '').split(',').filter(Boolean);
    const { slice, paging } = page(liveContacts(ctx.portal), request.query.get('after'), limit);
    return { results: slice.map((contact) => contactView(contact, properties)), ...(paging && { paging }) };
  }),
  route(
    'POST',
    /^\/crm\/v3\/objects\/contacts\/batch\/read$/,
    'crm.objects.contacts.read',
    (ctx, request) => {
      const body = request.body as { properties?: string[]; idProperty?: string };
      const inputs = inputsOf(request.body);
      const results = [];
      const missing: string[] = [];
      for (const input of inputs) {
        const contact = ctx.portal.contacts.get(String(input.id));
        if (contact === undefined || contact.archived) missing.push(String(input.id));
        else results.push(contactView(contact, body.properties ?? []));
      }
      const base = {
        status: 'COMPLETE',
        results,
        startedAt: ctx.now().toISOString(),
        completedAt: ctx.now().toISOString(),
      };
      if (missing.length === 0) return base;
      return {
        status: 207,
        body: {
          ...base,
          numErrors: 1,
          errors: [
            {
              status: 'error',
              category: 'OBJECT_NOT_FOUND',
              message: 'Could not get some CONTACT objects, they may be deleted or not exist.',
              context: { ids: missing },
            },
          ],
        },
      };
    },
  ),
  route(
    'POST',
    /^\/crm\/v3\/objects\/contacts\/batch\/update$/,
    'crm.objects.contacts.write',
    (ctx, request) => {
      const inputs = inputsOf(request.body);
      const results = [];
      const errors = [];
      for (const input of inputs) {
        const contact = ctx.portal.contacts.get(String(input.id));
        if (contact === undefined || contact.archived) {
          errors.push({
            status: 'error',
            category: 'OBJECT_NOT_FOUND',
            message: `Object not found.  objectId are usually numeric.`,
            context: { id: [String(input.id)] },
          });
          continue;
        }
        const refused = writeProperties(ctx, contact, (input.properties ?? {}) as Record<string, unknown>);
        if (refused !== null) {
          // One invalid value fails the whole batch, as HubSpot's property validation does.
          throw refused;
        }
        results.push(contactView(contact, Object.keys(input.properties ?? {})));
      }
      const base = {
        status: 'COMPLETE',
        results,
        startedAt: ctx.now().toISOString(),
        completedAt: ctx.now().toISOString(),
      };
      return errors.length === 0
        ? base
        : { status: 207, body: { ...base, numErrors: errors.length, errors } };
    },
  ),
  route('POST', /^\/crm\/v3\/objects\/contacts\/search$/, 'crm.objects.contacts.read', (ctx, request) => {
    const body = (request.body ?? {}) as {
      filterGroups?: Array<{
        filters?: Array<{ propertyName?: string; operator?: string; value?: unknown }>;
      }>;
      sorts?: Array<{ propertyName?: string; direction?: string }>;
      properties?: string[];
      limit?: number;
      after?: string | number;
    };
    const limit = limitOf(body.limit, 10, 200);
    const groups = body.filterGroups ?? [];
    if (groups.length > 5) throw invalid('At most 5 filterGroups');
    let found = liveContacts(ctx.portal).filter(
      (contact) =>
        groups.length === 0 ||
        groups.some((group) => (group.filters ?? []).every((f) => searchFilter(contact, f))),
    );
    const sort = body.sorts?.[0];
    if (sort?.propertyName) {
      const name = sort.propertyName;
      const direction = sort.direction === 'DESCENDING' ? -1 : 1;
      found = found.sort(
        (a, b) =>
          direction * String(a.properties[name] ?? '').localeCompare(String(b.properties[name] ?? '')),
      );
    }
    const after = body.after === undefined ? 0 : Number(body.after);
    if (after + limit > 10_000) throw invalid('Search results are limited to 10,000 records');
    const { slice, paging } = page(found, String(after), limit);
    return {
      total: found.length,
      results: slice.map((contact) => contactView(contact, body.properties ?? [])),
      ...(paging && { paging }),
    };
  }),
  route('GET', /^\/crm\/v3\/properties\/contacts$/, 'crm.schemas.contacts.read', (ctx) => ({
    results: [...ctx.portal.properties.values()],
  })),
  route('POST', /^\/crm\/v3\/properties\/contacts$/, 'crm.schemas.contacts.write', (ctx, request) => {
    const body = request.body as Record<string, unknown>;
    const name = String(body.name ?? '');
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw invalid('name must be lower case letters, digits and _');
    if (ctx.portal.properties.has(name))
      throw new HsError(409, 'CONFLICT', `Property named '${name}' already exists.`);
    if (!ctx.portal.groups.has(String(body.groupName)))
      throw invalid(`group ${String(body.groupName)} does not exist`);
    const property = { ...(body as object), name } as never;
    ctx.portal.properties.set(name, property);
    return { status: 201, body: property };
  }),
  route('GET', /^\/crm\/v3\/properties\/contacts\/groups$/, 'crm.schemas.contacts.read', (ctx) => ({
    results: [...ctx.portal.groups.values()],
  })),
  route('POST', /^\/crm\/v3\/properties\/contacts\/groups$/, 'crm.schemas.contacts.write', (ctx, request) => {
    const body = request.body as { name?: string; label?: string; displayOrder?: number };
    const name = String(body.name ?? '');
    if (ctx.portal.groups.has(name))
      throw new HsError(409, 'CONFLICT', `Group named '${name}' already exists.`);
    const group = { name, label: String(body.label ?? name), displayOrder: body.displayOrder ?? -1 };
    ctx.portal.groups.set(name, group);
    return { status: 201, body: group };
  }),
];
