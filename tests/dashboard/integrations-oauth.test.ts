/**
 * Connecting Mailchimp by OAuth in Chromium, against a real `mailvet serve` set up as
 * the emulator's registered app: the Integrations page offers a "Connect Mailchimp" link (the key
 * form's button is then "Connect with API key"); the browser goes to the emulator's consent page
 * (another site, as login.mailchimp.com is) and back to the callback, and the page names the account
 * it connected, shows its audiences and takes the outcome out of its address. A replayed
 * callback, a forged one and a refusal at Mailchimp each end on the page with their error and connect
 * nothing more. A server without OAuth set up offers no such link. Steps run in order and share one
 * signed-in page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import type { EmulatedAccount, MailchimpEmulator } from '../mailchimp/emulator.ts';
import {
  type ApiSession,
  browserSessionCookie,
  type DashboardServer,
  launchChromium,
  MAILCHIMP_OAUTH_CLIENT,
  navigate,
  newContext,
  requireDashboard,
  sessionFetch,
  sessionFromCookie,
  signUpInBrowser,
  startDashboardServer,
} from './harness.ts';

const dashboard = requireDashboard('dashboard integrations-oauth suite');

const CALLBACK_PATH = '/integrations/mailchimp/callback';
/** The page's outcomes of the callback (web/src/pages/IntegrationsPage.tsx). */
const CONNECTED = 'Connected “OAuth Shop” (us14).';
const REFUSED = 'Mailchimp did not confirm the connection. Try again, or use an API key.';
const BAD_STATE = 'Mailchimp was not connected: the link had expired or was not yours. Try again.';
const DENIED = 'Mailchimp was not connected: access was not allowed at Mailchimp.';

if (dashboard.executablePath === null) {
  test('dashboard integrations OAuth', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('dashboard integrations OAuth', () => {
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let mailchimp: MailchimpEmulator;
    let shop: EmulatedAccount;
    let session: ApiSession;
    /** Every request of the page's main frame, redirects included, in order. */
    const visited: Request[] = [];
    /** The callback URL Mailchimp sent the browser back to in the flow that connected. */
    let usedCallback: URL;

    const connectLink = () => page.getByRole('link', { name: 'Connect Mailchimp' });
    /** The outcome is read once and then taken out of the address (a reload does not repeat it). */
    const addressCleaned = () =>
      page.waitForURL((url) => url.pathname === '/integrations' && url.search === '');
    const card = () => page.getByRole('article', { name: 'OAuth Shop' });
    const integrations = async () => {
      const response = await sessionFetch(server.url, session, '/integrations');
      const text = await response.text();
      assert.equal(response.status, 200, text);
      return (JSON.parse(text) as { integrations: Array<{ id: string; account_name: string; dc: string }> })
        .integrations;
    };
    /** Waits until the page, loaded at /integrations?error=…, shows `text` in its alert. */
    const alertSays = async (text: string) => {
      const alert = page.getByRole('alert').filter({ hasText: text });
      await alert.waitFor();
      assert.equal(await alert.textContent(), text);
    };

    before(async () => {
      [server, browser] = await Promise.all([
        startDashboardServer({ plans: 'generous', mailchimpOAuth: true }),
        launchChromium(executablePath),
      ]);
      assert.ok(server.mailchimp !== null, 'the server talks to the emulator');
      mailchimp = server.mailchimp;
      // Not the first account added: the one that logs in at Mailchimp is the one connected.
      mailchimp.addAccount({ dc: 'us6', name: 'Someone Else' });
      shop = mailchimp.addAccount({ dc: 'us14', name: 'OAuth Shop' });
      const newsletter = mailchimp.addAudience(shop, { name: 'Newsletter' });
      for (let n = 1; n <= 3; n++) mailchimp.addMember(newsletter, { email: `reader${n}@example.com` });
      const customers = mailchimp.addAudience(shop, { name: 'Customers' });
      mailchimp.addMember(customers, { email: 'buyer@example.com' });
      mailchimp.oauthLoginAs(shop);
      context = await newContext(browser);
      // Hang guards for every action and wait below, not timing assertions.
      context.setDefaultTimeout(20_000);
      page = await context.newPage();
      page.on('request', (request) => {
        if (request.isNavigationRequest() && request.frame() === page.mainFrame()) visited.push(request);
      });
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('offers connecting by OAuth beside the API key', async () => {
      await signUpInBrowser(page, server.url, 'oauth@example.com', 'correct horse battery');
      session = await sessionFromCookie(server.url, 'oauth@example.com', await browserSessionCookie(context));
      await navigate(page, 'Integrations');
      await connectLink().waitFor();
      assert.equal(await connectLink().getAttribute('href'), '/integrations/mailchimp/connect');
      await page.getByLabel('Mailchimp API key').waitFor();
      await page.getByRole('button', { name: 'Connect with API key' }).waitFor();
      await page.getByText('No integrations yet.').waitFor();
    });

    it('goes through Mailchimp’s consent page and back, then shows the account and its audiences', async () => {
      visited.length = 0;
      await connectLink().click();
      const status = page.getByRole('status').filter({ hasText: CONNECTED });
      await status.waitFor();
      assert.equal(await status.textContent(), CONNECTED);
      await addressCleaned();

      const urls = visited.map((request) => new URL(request.url()));
      const steps = urls.map((url) => `${url.origin}${url.pathname}`);
      const consentOrigin = `http://localhost:${new URL(mailchimp.oauthBase).port}`;
      assert.deepEqual(steps, [
        `${server.url}/integrations/mailchimp/connect`,
        `${consentOrigin}/oauth2/authorize`,
        `${server.url}${CALLBACK_PATH}`,
        `${server.url}/integrations`,
      ]);
      const [, authorize, callback, landed] = urls as [URL, URL, URL, URL];
      assert.equal(authorize.searchParams.get('client_id'), MAILCHIMP_OAUTH_CLIENT.clientId);
      assert.equal(authorize.searchParams.get('redirect_uri'), `${server.url}${CALLBACK_PATH}`);
      assert.equal(callback.searchParams.get('state'), authorize.searchParams.get('state'));
      assert.ok(callback.searchParams.get('code'), `a code: ${callback}`);
      usedCallback = callback;
      // Back from another site, as from login.mailchimp.com: the session cookie (SameSite=Lax) came too.
      assert.equal((await visited[2]!.allHeaders())['sec-fetch-site'], 'cross-site');

      const connectedId = landed.searchParams.get('connected');
      const listed = await integrations();
      assert.deepEqual(
        listed.map(({ id, account_name, dc }) => ({ id, account_name, dc })),
        [{ id: connectedId, account_name: 'OAuth Shop', dc: 'us14' }],
      );

      await card().getByText('Mailchimp, data centre us14', { exact: false }).waitFor();
      const audiences = card().getByRole('region', { name: 'Audiences of OAuth Shop' });
      const row = (name: string) => audiences.getByRole('row', { name: new RegExp(`^${name}`) });
      await row('Newsletter').waitFor();
      assert.deepEqual(await row('Newsletter').locator('th, td').allTextContents(), [
        'Newsletter',
        '3',
        'Never',
        '',
        'Validate now',
      ]);
      assert.deepEqual(await row('Customers').locator('th, td').allTextContents(), [
        'Customers',
        '1',
        'Never',
        '',
        'Validate now',
      ]);
    });

    it('says so when the same callback comes again, and connects nothing more', async () => {
      // goto follows the redirects and resolves once the last page has loaded.
      const [landed] = await Promise.all([
        page.waitForRequest(
          (request) => request.isNavigationRequest() && new URL(request.url()).pathname === '/integrations',
        ),
        page.goto(usedCallback.toString()),
      ]);
      assert.equal(new URL(landed.url()).searchParams.get('error'), 'refused');
      await alertSays(REFUSED);
      await addressCleaned();
      await card().waitFor();
      assert.equal((await integrations()).length, 1);
    });

    it('says so when the callback’s state is forged, and connects nothing', async () => {
      const [landed] = await Promise.all([
        page.waitForRequest(
          (request) => request.isNavigationRequest() && new URL(request.url()).pathname === '/integrations',
        ),
        page.goto(`${server.url}${CALLBACK_PATH}?code=x&state=forged`),
      ]);
      assert.equal(new URL(landed.url()).searchParams.get('error'), 'state');
      await alertSays(BAD_STATE);
      assert.equal(await page.getByRole('status').filter({ hasText: CONNECTED }).count(), 0);
      await card().waitFor();
      assert.equal((await integrations()).length, 1);
    });

    it('says so when access is not allowed at Mailchimp', async () => {
      mailchimp.oauthLoginAs('deny');
      const [landed] = await Promise.all([
        page.waitForRequest(
          (request) => request.isNavigationRequest() && new URL(request.url()).pathname === '/integrations',
        ),
        connectLink().click(),
      ]);
      assert.equal(new URL(landed.url()).searchParams.get('error'), 'denied');
      await alertSays(DENIED);
      await card().waitFor();
      assert.equal((await integrations()).length, 1);
    });
  });

  describe('dashboard integrations without OAuth set up', () => {
    let server: DashboardServer;
    let browser: Browser;

    before(async () => {
      [server, browser] = await Promise.all([
        startDashboardServer({ plans: 'generous', mailchimp: true }),
        launchChromium(executablePath),
      ]);
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('offers only the API key', async () => {
      const context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await signUpInBrowser(page, server.url, 'key-only@example.com', 'correct horse battery');
      await navigate(page, 'Integrations');
      // The OAuth link comes with the same answer as the (empty) list: once the list shows, it would too.
      await page.getByText('No integrations yet.').waitFor();
      await page.getByLabel('Mailchimp API key').waitFor();
      assert.equal(await page.getByRole('link', { name: /Mailchimp/ }).count(), 0);
    });
  });
}
