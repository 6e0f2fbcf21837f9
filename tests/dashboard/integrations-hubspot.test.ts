/**
 * Connecting HubSpot in Chromium, against a real `mailvet serve` pointed at the HubSpot emulator
 * and registered as its OAuth app: the Integrations page offers **Connect HubSpot** beside
 * Mailchimp (a link to HubSpot's consent page, and the private app token form); a token is
 * connected and its card speaks HubSpot's words (its portal, its lists, "All contacts"); the OAuth
 * flow goes to the emulator's consent page and back and connects the portal by its hub domain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { addContact, addList } from '../hubspot/state.ts';
import {
  type DashboardServer,
  launchChromium,
  navigate,
  newContext,
  requireDashboard,
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
    let page: Page;
    let token: string;

    before(async () => {
      emulator = await startHubSpotEmulator({ app });
      // The first portal is the one that logs in at the consent page.
      const oauthPortal = emulator.addPortal(5_000_001, 'oauth-shop.hubspot.test');
      addContact(oauthPortal.portal, 'reader@accept.test');
      const privatePortal = emulator.addPortal(5_000_002);
      const ids = ['user1@accept.test', 'user2@accept.test'].map(
        (email) => addContact(privatePortal.portal, email).id,
      );
      addList(privatePortal.portal, 'Newsletter', ids);
      token = privatePortal.token;
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
      const context = await newContext(browser);
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
    });

    it('connects by OAuth through HubSpot’s consent page', async () => {
      await page.getByRole('link', { name: 'Connect HubSpot' }).click();
      await page.waitForURL((url) => url.pathname === '/integrations' && url.search === '');
      const card = page.getByRole('article', { name: 'oauth-shop.hubspot.test' });
      await card.waitFor();
      await card.getByRole('cell', { name: 'All contacts' }).waitFor();
      assert.ok(emulator.count('/oauth/v3/token', 'POST') >= 1);
    });
  });
}
