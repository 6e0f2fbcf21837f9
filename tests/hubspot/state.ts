/**
 * The HubSpot emulator's world: portals with their contacts, contact properties and groups, Lists v3
 * lists and memberships, marketing emails, private-app tokens and OAuth tokens. Plain data; the
 * routes (`routes-*.ts`) read and change it.
 */
import { randomUUID } from 'node:crypto';

export interface Contact {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  /** Property writes received (batch updates count one per contact). */
  writes: number;
}

export interface PropertyDefinition {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  options?: Array<{ label: string; value: string; displayOrder?: number; hidden?: boolean }>;
}

export interface ContactList {
  listId: string;
  name: string;
  processingType: 'MANUAL' | 'DYNAMIC' | 'SNAPSHOT';
  objectTypeId: string;
  filterBranch?: unknown;
  /** MANUAL lists: their members; DYNAMIC ones are evaluated when read. */
  members: Set<string>;
  createdAt: string;
}

export interface MarketingEmail {
  id: string;
  name: string;
  state: string;
  to: { contactIlsLists: { include: string[]; exclude: string[] } };
}

export interface Portal {
  portalId: number;
  /** `hub_domain` of the portal, as account info and token info give it. */
  hubDomain: string;
  /** The portal's own name: HubSpot's account info does not carry one (see the header of emulator.ts). */
  dataHostingLocation: string;
  contacts: Map<string, Contact>;
  properties: Map<string, PropertyDefinition>;
  groups: Map<string, { name: string; label: string; displayOrder: number }>;
  lists: Map<string, ContactList>;
  emails: Map<string, MarketingEmail>;
  /** Addresses opted out of all email through communication preferences. */
  unsubscribedAll: Set<string>;
  nextContactId: number;
  nextListId: number;
}

export interface Token {
  portalId: number;
  kind: 'private_app' | 'oauth';
  scopes: string[];
  /** Epoch ms; private-app tokens never expire. */
  expiresAt: number | null;
  revoked: boolean;
}

export interface World {
  portals: Map<number, Portal>;
  tokens: Map<string, Token>;
  /** OAuth refresh tokens → portal, scopes; refused once revoked. */
  refreshTokens: Map<string, { portalId: number; scopes: string[]; revoked: boolean }>;
  /** One-time authorization codes. */
  codes: Map<string, { portalId: number; scopes: string[]; redirectUri: string }>;
}

export const ALL_SCOPES = [
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.lists.read',
  'crm.lists.write',
  'content',
  'communication_preferences.read_write',
];

const BUILT_IN_PROPERTIES: PropertyDefinition[] = [
  { name: 'email', label: 'Email', type: 'string', fieldType: 'text', groupName: 'contactinformation' },
  {
    name: 'firstname',
    label: 'First Name',
    type: 'string',
    fieldType: 'text',
    groupName: 'contactinformation',
  },
  {
    name: 'hs_email_optout',
    label: 'Unsubscribed from all email',
    type: 'enumeration',
    fieldType: 'booleancheckbox',
    groupName: 'emailinformation',
  },
  {
    name: 'lastmodifieddate',
    label: 'Last Modified Date',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'contactinformation',
  },
  {
    name: 'createdate',
    label: 'Create Date',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'contactinformation',
  },
];

export function newWorld(): World {
  return { portals: new Map(), tokens: new Map(), refreshTokens: new Map(), codes: new Map() };
}

export function newPortal(world: World, portalId: number, hubDomain: string): Portal {
  const portal: Portal = {
    portalId,
    hubDomain,
    dataHostingLocation: 'na1',
    contacts: new Map(),
    properties: new Map(BUILT_IN_PROPERTIES.map((property) => [property.name, { ...property }])),
    groups: new Map([
      ['contactinformation', { name: 'contactinformation', label: 'Contact information', displayOrder: 0 }],
      ['emailinformation', { name: 'emailinformation', label: 'Email information', displayOrder: 1 }],
    ]),
    lists: new Map(),
    emails: new Map(),
    unsubscribedAll: new Set(),
    nextContactId: 101,
    nextListId: 1,
  };
  world.portals.set(portalId, portal);
  return portal;
}

/** Adds a contact as HubSpot keeps it: every value a string, `hs_email_optout` "true" or "false". */
export function addContact(
  portal: Portal,
  email: string,
  options: { optedOut?: boolean; createdAt?: string } = {},
): Contact {
  const at = options.createdAt ?? new Date().toISOString();
  const id = String(portal.nextContactId++);
  const contact: Contact = {
    id,
    properties: {
      email,
      hs_email_optout: options.optedOut ? 'true' : 'false',
      createdate: at,
      lastmodifieddate: at,
      hs_object_id: id,
    },
    createdAt: at,
    updatedAt: at,
    archived: false,
    writes: 0,
  };
  portal.contacts.set(id, contact);
  return contact;
}

export function addList(portal: Portal, name: string, members: Iterable<string>): ContactList {
  const list: ContactList = {
    listId: String(portal.nextListId++),
    name,
    processingType: 'MANUAL',
    objectTypeId: '0-1',
    members: new Set(members),
    createdAt: new Date().toISOString(),
  };
  portal.lists.set(list.listId, list);
  return list;
}

export function newTokenValue(prefix: string): string {
  return `${prefix}${randomUUID()}`;
}
