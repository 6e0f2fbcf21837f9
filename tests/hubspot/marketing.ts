/**
 * The emulator's other routes: account info, communication preferences (opting out of all email,
 * one address or 100 a batch) and marketing emails (read, list, change a draft's recipients).
 */
import { invalid, notFound } from './errors.ts';
import { type Route, route } from './route-kit.ts';

export const MARKETING_ROUTES: Route[] = [
  route('GET', /^\/account-info\/v3\/details$/, null, (ctx) => ({
    portalId: ctx.portal.portalId,
    accountType: 'STANDARD',
    timeZone: 'US/Eastern',
    companyCurrency: 'USD',
    additionalCurrencies: [],
    utcOffset: '-05:00',
    utcOffsetMilliseconds: -18_000_000,
    uiDomain: 'app.hubspot.com',
    dataHostingLocation: ctx.portal.dataHostingLocation,
  })),
  route(
    'POST',
    /^\/communication-preferences\/v4\/statuses\/(?!batch\/)([^/]+)\/unsubscribe-all$/,
    'communication_preferences.read_write',
    (ctx, request, [email]) => {
      if (request.query.get('channel') !== 'EMAIL') throw invalid('channel is required (EMAIL)');
      const address = decodeURIComponent(email!).toLowerCase();
      ctx.portal.unsubscribedAll.add(address);
      for (const contact of ctx.portal.contacts.values()) {
        if (contact.properties.email?.toLowerCase() === address) contact.properties.hs_email_optout = 'true';
      }
      return {
        results: [],
        status: 'COMPLETE',
        startedAt: ctx.now().toISOString(),
        completedAt: ctx.now().toISOString(),
      };
    },
  ),
  route(
    'POST',
    /^\/communication-preferences\/v4\/statuses\/batch\/unsubscribe-all$/,
    'communication_preferences.read_write',
    (ctx, request) => {
      if (request.query.get('channel') !== 'EMAIL') throw invalid('channel is required (EMAIL)');
      const inputs = ((request.body as { inputs?: unknown })?.inputs ?? []) as unknown[];
      if (!Array.isArray(inputs) || inputs.length > 100) throw invalid('inputs: at most 100 addresses');
      for (const address of inputs.map((each) => String(each).toLowerCase())) {
        ctx.portal.unsubscribedAll.add(address);
        for (const contact of ctx.portal.contacts.values()) {
          if (contact.properties.email?.toLowerCase() === address)
            contact.properties.hs_email_optout = 'true';
        }
      }
      return {
        status: 'COMPLETE',
        results: [],
        startedAt: ctx.now().toISOString(),
        completedAt: ctx.now().toISOString(),
      };
    },
  ),
  route('GET', /^\/marketing\/v3\/emails$/, 'content', (ctx) => ({
    results: [...ctx.portal.emails.values()],
    total: ctx.portal.emails.size,
  })),
  route('GET', /^\/marketing\/v3\/emails\/([^/]+)$/, 'content', (ctx, _request, [id]) => {
    const email = ctx.portal.emails.get(id!);
    if (email === undefined) throw notFound(`Email ${id} not found`);
    return email;
  }),
  route('PATCH', /^\/marketing\/v3\/emails\/([^/]+)$/, 'content', (ctx, request, [id]) => {
    const email = ctx.portal.emails.get(id!);
    if (email === undefined) throw notFound(`Email ${id} not found`);
    if (email.state !== 'DRAFT') throw invalid('Only a draft email can be edited');
    const body = request.body as { to?: { contactIlsLists?: { include?: string[]; exclude?: string[] } } };
    const lists = body.to?.contactIlsLists;
    if (lists?.include) email.to.contactIlsLists.include = lists.include.map(String);
    if (lists?.exclude) email.to.contactIlsLists.exclude = lists.exclude.map(String);
    return email;
  }),
];
