/**
 * Connecting HubSpot in Chromium, against a real `mailvet serve` pointed at the HubSpot emulator
 * and registered as its OAuth app: the Integrations page offers **Connect HubSpot** beside
 * Mailchimp (a link to HubSpot's consent page, and the private app token form); a token is
 * connected and its card speaks HubSpot's words (its portal, its lists, "All contacts", new
 * contacts, no Mailchimp word); a list is watched from the card and the watch removed again; a token
 * without the `content` scope shows, in the pre-campaign check, HubSpot's missing scope by name and
 * where to grant it; the OAuth flow goes to the emulator's consent page and back and connects the
 * portal by its hub domain, and a refused or forged callback is told in HubSpot's words, beside
 * Connect HubSpot.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { ALL_SCOPES, addContact, addList } from '../hubspot/state.ts';
import {
  type ApiSession,
  browserSessionCookie,
  type DashboardServer,
  launchChromium,
  navigate,
  newContext,
  requireDashboard,
  sessionFetch,
  sessionFromCookie,
  signUpInBrowser,
  startDashboardServer,
} from './harness.ts';

const dashboard = requireDashboard('dashboard integrations-hubspot suite');
const app = { clientId: 'mailvet-hubspot', clientSecret: 'hubspot-secret-0123456789' };

if (dashboard.executablePath === null) {
  test('dashboard HubSpot integration', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('dashboard HubSpot integration', () => {
    let emulator: HubSpotEmulator;
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let token: string;
    /** A private app token without `content` (marketing emails). */
    let contentless: string;
    let session: ApiSession;
    let newsletterId: string;

    const privateCard = () => page.getByRole('article', { name: 'HubSpot portal 5000002' });
    /** The watches the API has for the private app's integration. */
    const watchesOfPrivateApp = async () => {
      const listed = (await (await sessionFetch(server.url, session, '/integrations')).json()) as {
        integrations: Array<{ id: string; portal_id?: string }>;
      };
      const integration = listed.integrations.find((each) => each.portal_id === '5000002');
      assert.ok(integration, JSON.stringify(listed));
      const response = await sessionFetch(server.url, session, `/integrations/${integration.id}/watches`);
      assert.equal(response.status, 200);
      return ((await response.json()) as { watches: Array<{ audience_id: string }> }).watches;
    };

    before(async () => {
      emulator = await startHubSpotEmulator({ app });
      // The first portal is the one that logs in at the consent page.
      const oauthPortal = emulator.addPortal(5_000_001, 'oauth-shop.hubspot.test');
      addContact(oauthPortal.portal, 'reader@accept.test');
      const privatePortal = emulator.addPortal(5_000_002);
      const ids = ['user1@accept.test', 'user2@accept.test'].map(
        (email) => addContact(privatePortal.portal, email).id,
      );
      const newsletter = addList(privatePortal.portal, 'Newsletter', ids);
      newsletterId = newsletter.listId;
      privatePortal.portal.emails.set('91', {
        id: '91',
        name: 'Spring letter',
        state: 'DRAFT',
        to: { contactIlsLists: { include: [newsletterId], exclude: [] } },
      });
      token = privatePortal.token;
      const withoutContent = emulator.addPortal(
        5_000_003,
        undefined,
        ALL_SCOPES.filter((scope) => scope !== 'content'),
      );
      addContact(withoutContent.portal, 'user3@accept.test');
      contentless = withoutContent.token;
      const origin = `http://localhost:${new URL(emulator.origin).port}`;
      [server, browser] = await Promise.all([
        startDashboardServer({
          plans: 'generous',
          env: {
            MAILVET_HUBSPOT_BASE_URL: emulator.origin,
            MAILVET_HUBSPOT_LOGIN_URL: origin,
            MAILVET_HUBSPOT_CLIENT_ID: app.clientId,
            MAILVET_HUBSPOT_CLIENT_SECRET: app.clientSecret,
          },
        }),
        launchChromium(executablePath),
      ]);
      context = await newContext(browser);
      // Hang guards for every action and wait below, not timing assertions.
      context.setDefaultTimeout(20_000);
      page = await context.newPage();
    });

    after(async () => {
      await browser?.close();
      await server?.close();
      await emulator?.close();
    });

    it('offers Connect HubSpot beside Mailchimp: a link to HubSpot and the token form', async () => {
      await signUpInBrowser(page, server.url, 'hubspot@example.com', 'correct horse battery');
      await navigate(page, 'Integrations');
      await page.getByRole('heading', { name: 'Connect Mailchimp' }).waitFor();
      await page.getByRole('heading', { name: 'Connect HubSpot' }).waitFor();
      const link = page.getByRole('link', { name: 'Connect HubSpot' });
      assert.equal(await link.getAttribute('href'), '/integrations/hubspot/connect');
      await page.getByLabel('HubSpot private app token').waitFor();
    });

    it('connects a private app token; its card names the portal and its lists', async () => {
      await page.getByLabel('HubSpot private app token').fill('pat-na1-not-a-token');
      await page.getByRole('button', { name: 'Connect with private app token' }).click();
      await page.getByText(/Not a HubSpot API key/).waitFor();
      await page.getByLabel('HubSpot private app token').fill(token);
      await page.getByRole('button', { name: 'Connect with private app token' }).click();
      const card = page.getByRole('article', { name: 'HubSpot portal 5000002' });
      await card.waitFor();
      await card.getByText('HubSpot portal 5000002 (na1)').waitFor();
      await card.getByRole('heading', { name: 'Lists' }).waitFor();
      await card.getByRole('cell', { name: 'All contacts' }).waitFor();
      await card.getByRole('cell', { name: 'Newsletter' }).waitFor();
      session = await sessionFromCookie(
        server.url,
        'hubspot@example.com',
        await browserSessionCookie(context),
      );
    });

    it('watches a list’s new contacts from the card, in HubSpot’s words, and stops', async () => {
      const card = privateCard();
      await card.getByText(/^New contacts: when on, each contact created in HubSpot/).waitFor();
      await card.getByRole('columnheader', { name: 'Contacts', exact: true }).waitFor();
      await card.getByText('No runs yet: choose “Validate now” beside a list.').waitFor();
      assert.equal(
        // The feature keeps its name (Pre-campaign check); what it checks is a marketing email.
        await card.getByText(/subscriber|audience|Mailchimp|(?<!Pre-)campaign\b/i).count(),
        0,
        `no Mailchimp word on a HubSpot card: ${await card.innerText()}`,
      );
      const toggle = (checked: boolean) =>
        card.getByRole('checkbox', { name: 'Verify new contacts of Newsletter', checked, disabled: false });
      await toggle(false).check();
      await toggle(true).waitFor();
      assert.deepEqual(
        (await watchesOfPrivateApp()).map((watch) => watch.audience_id),
        [newsletterId],
      );

      // Listed from the API when the page is shown again, not only remembered by the page.
      await page.reload();
      await toggle(true).waitFor();
      await card
        .getByRole('checkbox', { name: 'Verify new contacts of All contacts', checked: false })
        .waitFor();

      await toggle(true).uncheck();
      await toggle(false).waitFor();
      assert.deepEqual(await watchesOfPrivateApp(), []);
      assert.equal(await card.getByRole('alert').count(), 0, 'no error on the card');
    });

    it('“Validate now” offers the statuses a HubSpot contact has, in HubSpot’s words', async () => {
      const card = privateCard();
      await card
        .getByRole('row', { name: /Newsletter/ })
        .getByRole('button', { name: 'Validate now' })
        .click();
      const form = card.getByRole('region', { name: 'Validate “Newsletter”' });
      await form.waitFor();
      const statuses = form.getByRole('group', { name: 'Contact statuses' });
      assert.deepEqual(
        await statuses
          .getByRole('checkbox')
          .evaluateAll((boxes) => boxes.map((box) => (box as unknown as { value: string }).value)),
        ['subscribed', 'unsubscribed'],
      );
      assert.equal(await statuses.getByRole('checkbox', { name: 'Subscribed to email' }).isChecked(), true);
      assert.equal(await statuses.getByRole('checkbox', { name: 'Opted out of email' }).isChecked(), false);
      const scope = form.getByRole('group', { name: 'Contacts to verify' });
      assert.equal(await scope.getByRole('radio', { name: 'All contacts' }).isChecked(), true);
      await form.getByRole('button', { name: 'Close' }).click();
      await form.waitFor({ state: 'detached' });
    });

    it('checks a draft marketing email before it is sent, in HubSpot’s words, and changes nothing', async () => {
      const check = privateCard().getByRole('region', { name: 'Pre-campaign check' });
      await check.getByLabel('Draft marketing email').selectOption('91');
      await check.getByRole('button', { name: 'Check marketing email' }).click();
      await check.getByText(/^2 recipients; 2 of them verified by this check\.$/).waitFor();
      const table = check.getByRole('table', { name: 'Recipients by category' });
      assert.equal(
        await table
          .getByRole('row', { name: /^Valid/ })
          .locator('td')
          .textContent(),
        '2',
      );
      const email = emulator.portal(5_000_002).emails.get('91');
      assert.deepEqual(email?.to.contactIlsLists, { include: [newsletterId], exclude: [] }, 'untouched');
    });

    it('names the scope a token lacks where the marketing email check would be, and where to grant it', async () => {
      await page.getByLabel('HubSpot private app token').fill(contentless);
      await page.getByRole('button', { name: 'Connect with private app token' }).click();
      const card = page.getByRole('article', { name: 'HubSpot portal 5000003' });
      const check = card.getByRole('region', { name: 'Pre-campaign check' });
      const alert = check.getByRole('alert');
      await alert.waitFor();
      const text = (await alert.textContent()) ?? '';
      assert.match(text, /^HubSpot did not grant this integration the scope content that this needs/, text);
      assert.match(text, /Private Apps → the app → Scopes/, text);
      // Still connected for the rest: its lists are there and its state says so.
      await card.getByRole('cell', { name: 'All contacts' }).waitFor();
      await card.getByText('Connected', { exact: true }).waitFor();
    });

    it('connects by OAuth through HubSpot’s consent page', async () => {
      await page.getByRole('link', { name: 'Connect HubSpot' }).click();
      await page.waitForURL((url) => url.pathname === '/integrations' && url.search === '');
      const card = page.getByRole('article', { name: 'oauth-shop.hubspot.test' });
      await card.waitFor();
      await card.getByRole('cell', { name: 'All contacts' }).waitFor();
      assert.ok(emulator.count('/oauth/v3/token', 'POST') >= 1);
      const told = page
        .getByRole('region', { name: 'Connect HubSpot' })
        .getByRole('status')
        .filter({ hasText: 'Connected' });
      assert.equal(await told.textContent(), 'Connected “oauth-shop.hubspot.test” (HubSpot portal 5000001).');
    });

    it('an expired OAuth token is refreshed on the way; a refused refresh shows the card disconnected with HubSpot’s reason', async () => {
      const card = page.getByRole('article', { name: 'oauth-shop.hubspot.test' });
      const tokens = () => emulator.count('/oauth/v3/token', 'POST');
      // HubSpot's access tokens last 30 minutes: its clock moves past that.
      emulator.now = () => Date.now() + 31 * 60_000;
      const before = tokens();
      await page.reload();
      await card.getByRole('cell', { name: 'All contacts' }).waitFor();
      assert.equal(await card.getByText('Connected', { exact: true }).count(), 1);
      assert.equal(tokens(), before + 1, 'refreshed once');

      // The app uninstalled: its refresh tokens are refused.
      for (const refresh of emulator.world.refreshTokens.values()) refresh.revoked = true;
      emulator.now = () => Date.now() + 62 * 60_000;
      await page.reload();
      const refused = card.getByRole('alert');
      await refused.waitFor();
      assert.match((await refused.textContent()) ?? '', /refresh token/i, 'HubSpot’s reason');
      await card.getByText('Disconnected', { exact: true }).waitFor();
      emulator.now = Date.now;
    });

    it('tells a forged or refused HubSpot callback in HubSpot’s words, beside Connect HubSpot', async () => {
      // A state issued to this browser's session, as the consent page would send back with a refusal.
      const started = await fetch(`${server.url}/integrations/hubspot/connect`, {
        headers: { cookie: await browserSessionCookie(context) },
        redirect: 'manual',
      });
      const state = new URL(String(started.headers.get('location'))).searchParams.get('state') ?? '';
      const outcomes = [
        ['state=forged', 'HubSpot was not connected: the link had expired or was not yours. Try again.'],
        [
          `error=access_denied&state=${encodeURIComponent(state)}`,
          'HubSpot was not connected: access was not allowed at HubSpot.',
        ],
      ];
      for (const [query, text] of outcomes) {
        await page.goto(`${server.url}/integrations/hubspot/callback?${query}`);
        await page.waitForURL((url) => url.pathname === '/integrations' && url.search === '');
        const alert = page.getByRole('region', { name: 'Connect HubSpot' }).getByRole('alert');
        await alert.waitFor();
        assert.equal(await alert.textContent(), text);
        assert.equal(
          await page.getByRole('region', { name: 'Connect Mailchimp' }).getByRole('alert').count(),
          0,
          'nothing said beside Mailchimp',
        );
      }
    });
  });
}
