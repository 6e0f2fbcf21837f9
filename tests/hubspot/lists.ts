/**
 * The emulator's Lists v3 routes (contacts, `objectTypeId` 0-1): search, create MANUAL and DYNAMIC
 * (filter branches of NUMBER property filters, as Mailvet's score lists use), read, memberships
 * (250 a page) and adding members to a MANUAL list.
 */
import { invalid, notFound } from './errors.ts';
import { limitOf, liveContacts, page, type Route, route } from './route-kit.ts';
import type { Contact, ContactList, Portal } from './state.ts';

export function matchesBranch(branch: unknown, contact: Contact): boolean {
  const node = branch as {
    filterBranchType?: string;
    filterBranches?: unknown[];
    filters?: Array<{ property?: string; operation?: Record<string, unknown> }>;
  };
  const filters = (node.filters ?? []).map((filter) => matchesFilter(filter, contact));
  const branches = (node.filterBranches ?? []).map((child) => matchesBranch(child, contact));
  const all = [...filters, ...branches];
  if (node.filterBranchType === 'OR') return all.some(Boolean);
  return all.every(Boolean);
}

function matchesFilter(
  filter: { property?: string; operation?: Record<string, unknown> },
  contact: Contact,
): boolean {
  const raw = contact.properties[filter.property ?? ''];
  if (raw === undefined || raw === null || raw === '')
    return filter.operation?.includeObjectsWithNoValueSet === true;
  const value = Number(raw);
  const op = filter.operation ?? {};
  switch (op.operator) {
    case 'IS_GREATER_THAN_OR_EQUAL_TO':
      return value >= Number(op.value);
    case 'IS_LESS_THAN_OR_EQUAL_TO':
      return value <= Number(op.value);
    case 'IS_BETWEEN':
      return value >= Number(op.lowerBound) && value <= Number(op.upperBound);
    case 'IS_EQUAL_TO':
      return value === Number(op.value);
    default:
      return false;
  }
}

function validateBranch(branch: unknown): void {
  const node = branch as { filterBranchType?: string; filterBranches?: unknown[]; filters?: unknown[] };
  if (
    node === null ||
    typeof node !== 'object' ||
    (node.filterBranchType !== 'OR' && node.filterBranchType !== 'AND')
  )
    throw invalid('filterBranch must be an OR or AND branch');
  if (node.filterBranchType === 'OR' && (node.filters ?? []).length > 0)
    throw invalid('The root OR filter branch may only contain AND filter branches');
  for (const filter of (node.filters ?? []) as Array<{
    filterType?: string;
    operation?: { operationType?: string };
  }>) {
    if (filter.filterType !== 'PROPERTY' || filter.operation?.operationType !== 'NUMBER')
      throw invalid('Unsupported filter (the emulator knows PROPERTY filters with NUMBER operations)');
  }
  for (const child of node.filterBranches ?? []) validateBranch(child);
}

export function listMembers(portal: Portal, list: ContactList): string[] {
  if (list.processingType === 'DYNAMIC')
    return liveContacts(portal)
      .filter((contact) => matchesBranch(list.filterBranch, contact))
      .map((contact) => contact.id);
  return [...list.members].filter((id) => portal.contacts.get(id)?.archived === false);
}

function listView(portal: Portal, list: ContactList) {
  return {
    listId: list.listId,
    name: list.name,
    processingType: list.processingType,
    processingStatus: 'COMPLETE',
    objectTypeId: list.objectTypeId,
    listVersion: 1,
    createdAt: list.createdAt,
    updatedAt: list.createdAt,
    additionalProperties: { hs_list_size: String(listMembers(portal, list).length) },
    ...(list.filterBranch === undefined ? {} : { filterBranch: list.filterBranch }),
  };
}

export const LIST_ROUTES: Route[] = [
  route('POST', /^\/crm\/v3\/lists\/search$/, 'crm.lists.read', (ctx, request) => {
    const body = (request.body ?? {}) as {
      query?: string;
      count?: number;
      offset?: number;
      processingTypes?: string[];
    };
    const count = limitOf(body.count, 20, 500);
    const offset = body.offset ?? 0;
    const query = (body.query ?? '').toLowerCase();
    const lists = [...ctx.portal.lists.values()].filter(
      (list) =>
        list.objectTypeId === '0-1' &&
        list.name.toLowerCase().includes(query) &&
        (body.processingTypes === undefined || body.processingTypes.includes(list.processingType)),
    );
    const slice = lists.slice(offset, offset + count);
    return {
      lists: slice.map((list) => listView(ctx.portal, list)),
      hasMore: offset + count < lists.length,
      offset: offset + slice.length,
      total: lists.length,
    };
  }),
  route('POST', /^\/crm\/v3\/lists$/, 'crm.lists.write', (ctx, request) => {
    const body = request.body as {
      name?: string;
      objectTypeId?: string;
      processingType?: string;
      filterBranch?: unknown;
    };
    if (!body.name) throw invalid('name is required');
    if (body.objectTypeId !== '0-1') throw invalid('objectTypeId must be 0-1 here (contacts)');
    if (
      body.processingType !== 'MANUAL' &&
      body.processingType !== 'DYNAMIC' &&
      body.processingType !== 'SNAPSHOT'
    )
      throw invalid('processingType must be MANUAL, DYNAMIC or SNAPSHOT');
    if ([...ctx.portal.lists.values()].some((list) => list.name === body.name))
      throw invalid(`A list named ${body.name} already exists.`, { subCategory: 'ILS.DUPLICATE_LIST_NAMES' });
    if (body.processingType === 'DYNAMIC') validateBranch(body.filterBranch);
    const list: ContactList = {
      listId: String(ctx.portal.nextListId++),
      name: body.name,
      processingType: body.processingType,
      objectTypeId: '0-1',
      members: new Set(),
      createdAt: ctx.now().toISOString(),
      ...(body.filterBranch !== undefined && { filterBranch: body.filterBranch }),
    };
    ctx.portal.lists.set(list.listId, list);
    return { list: listView(ctx.portal, list) };
  }),
  // A record's lists (Lists v3 "get lists a record is a member of"); listed before `/lists/{id}`.
  route(
    'GET',
    /^\/crm\/v3\/lists\/records\/0-1\/([^/]+)\/memberships$/,
    'crm.lists.read',
    (ctx, _request, [recordId]) => {
      const results = [...ctx.portal.lists.values()]
        .filter((list) => list.members.has(recordId!))
        .map((list) => ({
          listId: list.listId,
          listVersion: 1,
          firstAddedTimestamp: list.createdAt,
          lastAddedTimestamp: list.createdAt,
        }));
      return { results, total: results.length };
    },
  ),
  route('GET', /^\/crm\/v3\/lists\/([^/]+)$/, 'crm.lists.read', (ctx, _request, [id]) => {
    const list = ctx.portal.lists.get(id!);
    if (list === undefined) throw notFound(`List ${id} does not exist.`);
    return { list: listView(ctx.portal, list) };
  }),
  route('GET', /^\/crm\/v3\/lists\/([^/]+)\/memberships$/, 'crm.lists.read', (ctx, request, [id]) => {
    const list = ctx.portal.lists.get(id!);
    if (list === undefined) throw notFound(`List ${id} does not exist.`);
    const limit = limitOf(request.query.get('limit'), 100, 250);
    const { slice, paging } = page(listMembers(ctx.portal, list), request.query.get('after'), limit);
    return {
      results: slice.map((recordId) => ({ recordId, membershipTimestamp: list.createdAt })),
      ...(paging && { paging }),
    };
  }),
  route('PUT', /^\/crm\/v3\/lists\/([^/]+)\/memberships\/add$/, 'crm.lists.write', (ctx, request, [id]) => {
    const list = ctx.portal.lists.get(id!);
    if (list === undefined) throw notFound(`List ${id} does not exist.`);
    if (list.processingType !== 'MANUAL' && list.processingType !== 'SNAPSHOT')
      throw invalid('Memberships of a DYNAMIC list cannot be changed by hand.');
    const ids = request.body as unknown;
    if (!Array.isArray(ids)) throw invalid('The body is an array of record ids');
    if (ids.length > 100_000) throw invalid('At most 100,000 record ids a request');
    const added: string[] = [];
    const missing: string[] = [];
    for (const recordId of ids.map(String)) {
      if (!ctx.portal.contacts.has(recordId)) missing.push(recordId);
      else if (!list.members.has(recordId)) {
        list.members.add(recordId);
        added.push(recordId);
      }
    }
    return { recordIdsAdded: added, recordIdsMissing: missing };
  }),
];
