/**
 * "Acme Mail", a made-up email platform in memory with an adapter written only against the provider
 * port (src/integrations/ports.ts): what a second ESP's folder would hold. It is offered to a real
 * server beside Mailchimp (`moreProviders`), to show that the routes, runs, watches, hooks and
 * OAuth of integrations need nothing of Mailchimp's. Its own shapes differ from Mailchimp's on
 * purpose: keys `acme_<32 hex>@<region>`, webhooks posting JSON, writes finished on the next look.
 */
import { createHash } from 'node:crypto';
import type {
  Campaign,
  ExcludedSegment,
  Exclusion,
  Recipient,
} from '../../src/integrations/campaign-ports.ts';
import type {
  Audience,
  Member,
  MemberPage,
  MemberQuery,
  MemberResult,
  OpenedCredential,
  Provider,
  ProviderAccount,
  ProviderOAuth,
  ProviderSession,
  SubscribeEvent,
  WriteBackOptions,
  WriteOutcome,
} from '../../src/integrations/ports.ts';
import { ProviderAuthError } from '../../src/integrations/ports.ts';

/** A contact as Acme keeps it, with what Mailvet wrote. */
export interface AcmeContact {
  id: string;
  email: string;
  status: 'subscribed' | 'unsubscribed';
  changedAt: string;
  written: { status: string; score: number; checkedOn: string } | null;
  writes: number;
}

export interface AcmeList {
  id: string;
  name: string;
  contacts: Map<string, AcmeContact>;
  /** Webhook id → URL. */
  webhooks: Map<string, string>;
}

const KEY = /^acme_[0-9a-f]{32}@([a-z]{2}\d)$/;

export class AcmePlatform implements Provider {
  readonly name = 'acme';
  readonly label = 'Acme Mail';
  readonly apiKeyShape = 'acme_, 32 hexadecimal digits, @ and the region (…@eu1)';
  readonly oauth: ProviderOAuth;
  /** API key (or access token) → the list it can reach. */
  readonly #keys = new Map<string, AcmeList>();
  readonly #revoked = new Set<string>();
  readonly #jobs = new Map<string, { results: MemberResult[]; looked: boolean; list: AcmeList }>();
  #next = 0;

  constructor() {
    this.oauth = {
      authorizeUrl: (redirectUri, state) =>
        `https://login.acme.example/authorize?${new URLSearchParams({ redirect_uri: redirectUri, state })}`,
      exchange: async (code) => {
        const list = this.#keys.get(`code:${code}`);
        if (list === undefined) throw new ProviderAuthError('Acme refused the code');
        const token = `token-${code}`;
        this.#keys.set(token, list);
        return { accessToken: token, dc: 'eu1' };
      },
    };
  }

  /** A new Acme account with one list of these contacts; its API key. */
  addAccount(listName: string, contacts: ReadonlyArray<{ email: string; status?: AcmeContact['status'] }>) {
    const list: AcmeList = {
      id: `L${++this.#next}`,
      name: listName,
      contacts: new Map(),
      webhooks: new Map(),
    };
    for (const contact of contacts) this.addContact(list, contact.email, contact.status);
    const key = `acme_${createHash('md5').update(String(this.#next)).digest('hex')}@eu1`;
    this.#keys.set(key, list);
    return { key, list };
  }

  addContact(list: AcmeList, email: string, status: AcmeContact['status'] = 'subscribed'): AcmeContact {
    const contact: AcmeContact = {
      id: `C${++this.#next}`,
      email,
      status,
      changedAt: new Date().toISOString(),
      written: null,
      writes: 0,
    };
    list.contacts.set(contact.id, contact);
    return contact;
  }

  /** An authorization code the consent page would hand back for this list's account. */
  issueCode(list: AcmeList): string {
    const code = `code${++this.#next}`;
    this.#keys.set(`code:${code}`, list);
    return code;
  }

  revoke(key: string): void {
    this.#revoked.add(key);
  }

  apiKeyDc(apiKey: string): string | null {
    return KEY.exec(apiKey)?.[1] ?? null;
  }

  /** Acme posts JSON: `{"event": "contact.created", "list": id, "contact": {"email": …}}`. */
  hookEvent(body: Readonly<Record<string, unknown>>): SubscribeEvent | null {
    const contact = body.contact;
    if (body.event !== 'contact.created' || typeof body.list !== 'string') return null;
    if (typeof contact !== 'object' || contact === null) return null;
    const email = (contact as Record<string, unknown>).email;
    return typeof email === 'string' ? { audienceId: body.list, email } : null;
  }

  session(credential: OpenedCredential): ProviderSession {
    const listOf = (audienceId?: string): AcmeList => {
      const list = this.#keys.get(credential.secret);
      if (list === undefined || this.#revoked.has(credential.secret))
        throw new ProviderAuthError('Acme: this key was revoked');
      if (audienceId !== undefined && audienceId !== list.id) throw new Error(`Acme: no list ${audienceId}`);
      return list;
    };
    const write = (list: AcmeList, result: MemberResult) => {
      const contact = list.contacts.get(result.memberId);
      if (contact === undefined) return false;
      contact.written = { status: result.status, score: result.score, checkedOn: result.checkedOn };
      contact.writes += 1;
      return true;
    };
    const asMember = (contact: AcmeContact): Member => ({
      id: contact.id,
      email: contact.email,
      status: contact.status,
      lastChanged: contact.changedAt,
      checkedOn: contact.written?.checkedOn ?? null,
    });
    const jobs = this.#jobs;
    const nextJob = () => `J${++this.#next}`;
    return {
      account: async (): Promise<ProviderAccount> => {
        const list = listOf();
        return { id: `acct-${list.id}`, name: `Acme account of ${list.name}`, dc: credential.dc };
      },
      audiences: async (): Promise<Audience[]> => {
        const list = listOf();
        return [{ id: list.id, name: list.name, memberCount: list.contacts.size }];
      },
      members: async (audienceId: string, query: MemberQuery): Promise<MemberPage> => {
        const matching = [...listOf(audienceId).contacts.values()].filter(
          (contact) =>
            (query.statuses as readonly string[]).includes(contact.status) &&
            (query.changedSince === undefined || contact.changedAt >= query.changedSince),
        );
        return {
          members: matching.slice(query.offset, query.offset + query.count).map(asMember),
          total: matching.length,
        };
      },
      prepareWriteBack: async (audienceId: string) => {
        listOf(audienceId);
      },
      submitWrites: async (audienceId: string, results: readonly MemberResult[]) => {
        const id = nextJob();
        jobs.set(id, { results: [...results], looked: false, list: listOf(audienceId) });
        return id;
      },
      writeOutcome: async (jobId: string): Promise<WriteOutcome | null> => {
        const job = jobs.get(jobId);
        if (job === undefined) throw new Error(`Acme: no job ${jobId}`);
        // Acme finishes a job between two looks at it.
        if (!job.looked) {
          job.looked = true;
          return null;
        }
        const errors: WriteOutcome['errors'] = [];
        for (const result of job.results)
          if (!write(job.list, result))
            errors.push({ memberId: result.memberId, message: 'no such contact' });
        return { written: job.results.length - errors.length, errors };
      },
      member: async (audienceId: string, email: string) => {
        const found = [...listOf(audienceId).contacts.values()].find((contact) => contact.email === email);
        return found === undefined ? null : asMember(found);
      },
      writeMember: async (audienceId: string, result: MemberResult, _options: WriteBackOptions) => {
        write(listOf(audienceId), result);
      },
      watch: async (audienceId: string, url: string) => {
        const id = `W${++this.#next}`;
        listOf(audienceId).webhooks.set(id, url);
        return id;
      },
      unwatch: async (audienceId: string, webhookId: string) => {
        listOf(audienceId).webhooks.delete(webhookId);
      },
      campaign: async (): Promise<Campaign | null> => null,
      // Acme has no campaigns, so no recipients.
      campaignRecipients: async function* (): AsyncIterable<Recipient[]> {},
      excludeFromCampaign: async (_campaign: Campaign, _exclusion: Exclusion): Promise<ExcludedSegment> => {
        throw new Error('Acme has no campaigns');
      },
    };
  }
}
