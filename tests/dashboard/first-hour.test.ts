/**
 * The first hour in the dashboard, in Chromium against `mailvet serve` (with the Mailchimp
 * emulator): an empty sign-up form names both required fields and puts focus on the first; the
 * Overview's getting-started checklist ticks each step as it is done and stays dismissed, per user;
 * every signed-in page links to the API reference; the Account page asks for the doctor report and
 * shows how plans change only for an operator (the session says who is one), and a non-operator's
 * page makes no request it would be refused and logs no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WORLD_DOMAINS } from '../mailworld/mail-world.ts';
import {
  browserSessionCookie,
  createKeyInBrowser,
  type DashboardServer,
  heading,
  launchChromium,
  navigate,
  newContext,
  type PageGlobals,
  requireDashboard,
  sessionFromCookie,
  signUpInBrowser,
  startDashboardServer,
  waitUntil,
} from './harness.ts';

const dashboard = requireDashboard('dashboard first-hour suite');
const PASSWORD = 'correct horse battery';
const OPERATOR = 'ops@example.com';

/** The `name` of the focused element. */
function focusedName(page: Page): Promise<unknown> {
  return page.evaluate(
    () => ((globalThis as unknown as PageGlobals).document.activeElement as { name?: string } | null)?.name,
  );
}

/** Every request path the page makes from now on, and every console error it logs. */
function watch(page: Page): { paths: string[]; consoleErrors: string[] } {
  const seen = { paths: [] as string[], consoleErrors: [] as string[] };
  page.on('request', (request) => seen.paths.push(new URL(request.url()).pathname));
  page.on('console', (message) => {
    if (message.type() === 'error') seen.consoleErrors.push(message.text());
  });
  return seen;
}

if (dashboard.executablePath === null) {
  test('dashboard first hour', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('the dashboard’s first hour', () => {
    let server: DashboardServer;
    let browser: Browser;

    before(async () => {
      [server, browser] = await Promise.all([
        startDashboardServer({ mailchimp: true }),
        launchChromium(executablePath),
      ]);
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
      const context = await newContext(browser);
      // Hang guards for every action and wait, not timing assertions.
      context.setDefaultTimeout(20_000);
      return { context, page: await context.newPage() };
    }

    it('names both required fields of an empty sign-up form, with focus on the first', async () => {
      const { context, page } = await freshPage();
      const seen = watch(page);
      await page.goto(`${server.url}/signup`);
      await heading(page, 'Create your Mailvet account').waitFor();
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('Enter your email address: it is required.').waitFor();
      await page.getByText('Choose a password: it is required.').waitFor();
      assert.equal(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid'), 'true');
      assert.equal(await focusedName(page), 'email');
      assert.ok(!seen.paths.includes('/api/v1/signup'), 'nothing sent for an empty form');

      // With the email given, only the password is named, and focus goes there.
      await page.getByLabel('Email', { exact: true }).fill('someone@example.com');
      await page.getByRole('button', { name: 'Create account' }).click();
      await waitUntil(
        async () => (await page.getByText('Enter your email address: it is required.').count()) === 0,
        'the email’s error to go',
      );
      await page.getByText('Choose a password: it is required.').waitFor();
      assert.equal(await focusedName(page), 'password');
      await context.close();
    });

    it('ticks each getting-started step as it is done, and stays dismissed for that user', async () => {
      const { context, page } = await freshPage();
      const email = 'starter@example.com';
      await signUpInBrowser(page, server.url, email, PASSWORD);
      const checklist = page.getByRole('region', { name: 'Getting started' });
      const steps = checklist.getByRole('list', { name: 'Steps' }).getByRole('listitem');

      /** Opens the Overview and waits until the checklist reads `done` of 4, the right ones done. */
      const expectDone = async (done: string[]) => {
        await navigate(page, 'Overview');
        await checklist.getByText(`${done.length} of 4 done`, { exact: true }).waitFor();
        for (const step of await steps.all()) {
          const text = await step.innerText();
          const isDone = done.includes(await step.locator('strong').innerText());
          assert.match(text, isDone ? /\bDone\b/ : /\bTo do\b/, text);
        }
      };

      await checklist.getByText('0 of 4 done', { exact: true }).waitFor();
      assert.equal(await steps.count(), 4);
      for (const step of await steps.all()) assert.match(await step.innerText(), /\bTo do\b/);
      // Each step not done leads to where it is done.
      assert.equal(await checklist.getByRole('link', { name: 'Make a key' }).getAttribute('href'), '/keys');

      await createKeyInBrowser(page, 'Website');
      await expectDone(['Create an API key']);

      await navigate(page, 'Verify', 'Verify an address');
      await page.getByLabel('Email address').fill(`alice@${WORLD_DOMAINS['accept-known']}`);
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await page.getByRole('heading', { name: /^Result for/ }).waitFor();
      await expectDone(['Create an API key', 'Verify an address']);

      await navigate(page, 'Lists');
      await page.getByLabel('Or paste addresses, one per line').fill(`bob@${WORLD_DOMAINS['accept-known']}`);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByText(/^Uploaded “.+”: 1 rows to verify\.$/).waitFor();
      await expectDone(['Create an API key', 'Verify an address', 'Clean a list']);

      const shop = server.mailchimp!.addAccount({ name: 'Corner Shop' });
      await navigate(page, 'Integrations');
      await page.getByLabel('Mailchimp API key').fill(shop.apiKey);
      await page.getByRole('button', { name: 'Connect Mailchimp' }).click();
      await page.getByText('Connected “Corner Shop” (us21).').waitFor();
      await expectDone(['Create an API key', 'Verify an address', 'Clean a list', 'Connect a platform']);

      await checklist.getByRole('button', { name: 'Dismiss the checklist' }).click();
      await waitUntil(async () => (await checklist.count()) === 0, 'the checklist to go');
      const focused = await page.evaluate(
        () => ((globalThis as unknown as PageGlobals).document.activeElement as { tagName?: string }).tagName,
      );
      assert.equal(focused, 'H1', 'focus on the page’s heading, not lost with the button');

      // A page load later it is still gone, and its data is not even asked for.
      const seen = watch(page);
      await page.reload();
      await heading(page, 'Overview').waitFor();
      await page.getByRole('heading', { name: 'Recent lists' }).waitFor();
      assert.equal(await checklist.count(), 0);
      assert.ok(!seen.paths.includes('/api/v1/integrations'), seen.paths.join(', '));

      // Another user in the same browser still has the checklist: it is remembered per user.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading(page, 'Sign in to Mailvet').waitFor();
      await signUpInBrowser(page, server.url, 'second@example.com', PASSWORD);
      await checklist.getByText('0 of 4 done', { exact: true }).waitFor();
      await context.close();
    });

    it('links every signed-in page to the API reference', async () => {
      const { context, page } = await freshPage();
      await signUpInBrowser(page, server.url, 'reader@example.com', PASSWORD);
      for (const [link, title] of [
        ['Overview', 'Overview'],
        ['Lists', 'Lists'],
        ['Account', 'Account'],
      ] as const) {
        await navigate(page, link, title);
        const reference = page.getByRole('contentinfo').getByRole('link', { name: 'API reference' });
        assert.equal(await reference.getAttribute('href'), '/docs');
      }
      const [response] = await Promise.all([
        page.waitForResponse((answer) => new URL(answer.url()).pathname.startsWith('/docs')),
        page.getByRole('contentinfo').getByRole('link', { name: 'API reference' }).click(),
      ]);
      assert.equal(response.status(), 200);
      await waitUntil(() => new URL(page.url()).pathname.startsWith('/docs'), 'the API reference to open');
      await context.close();
    });

    it('asks a non-operator’s Account page for no doctor report and shows no plan hint', async () => {
      const { context, page } = await freshPage();
      const email = 'customer@example.com';
      await signUpInBrowser(page, server.url, email, PASSWORD);
      const session = await sessionFromCookie(server.url, email, await browserSessionCookie(context));
      const body = (await (
        await fetch(`${server.url}/api/v1/session`, { headers: { cookie: session.cookie } })
      ).json()) as { user: { operator: boolean } };
      assert.equal(body.user.operator, false);

      const seen = watch(page);
      await navigate(page, 'Account');
      await page.getByText('Requests per second').waitFor();
      await page.getByRole('heading', { name: 'Change password' }).waitFor();
      // The page has loaded what it asks for (the account): a doctor request would have gone with it.
      await waitUntil(() => seen.paths.includes('/api/v1/account'), 'the account request');
      assert.equal(await page.getByRole('heading', { name: 'Probe host health' }).count(), 0);
      assert.equal(await page.getByText('MAILVET_DEFAULT_PLAN').count(), 0);
      assert.ok(!seen.paths.includes('/api/v1/doctor'), seen.paths.join(', '));
      assert.deepEqual(seen.consoleErrors, []);
      await context.close();
    });

    it('shows an operator the probe host’s health and how to change plans', async () => {
      const { context, page } = await freshPage();
      await signUpInBrowser(page, server.url, OPERATOR, PASSWORD);
      await server.makeOperator(OPERATOR);
      // The dashboard reads the session when it loads.
      await page.reload();
      const session = await sessionFromCookie(server.url, OPERATOR, await browserSessionCookie(context));
      const body = (await (
        await fetch(`${server.url}/api/v1/session`, { headers: { cookie: session.cookie } })
      ).json()) as { user: { operator: boolean } };
      assert.equal(body.user.operator, true);

      // The report may still be in the making (the start-up run dials out): a longer hang guard.
      const doctor = page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/api/v1/doctor',
        { timeout: 30_000 },
      );
      await navigate(page, 'Account');
      assert.equal((await doctor).status(), 200);
      await page.getByRole('region', { name: 'Probe host health' }).waitFor();
      const plan = page.getByRole('region', { name: 'Plan and limits' });
      await plan.getByRole('heading', { name: 'Changing plans (operators)' }).waitFor();
      const hint = await plan.innerText();
      assert.ok(hint.includes(`mailvet accounts update ${session.accountId} --plan NAME`), hint);
      assert.match(hint, /MAILVET_DEFAULT_PLAN/);
      assert.match(hint, /MAILVET_PLANS/);
      await context.close();
    });
  });
}
