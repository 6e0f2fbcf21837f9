/**
 * The dashboard's boundaries in Chromium, on the built-in plans (the free plan's real rate limit):
 * one account's lists and keys are invisible to another, a session's unsafe request needs its own
 * CSRF token, sign-in attempts on one address are throttled and the person is told so, and the
 * sign-in form works with the keyboard alone, with a visible focus.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  type ApiSession,
  addSessionCookie,
  browserSessionCookie,
  type DashboardServer,
  heading,
  launchChromium,
  navigate,
  newContext,
  type PageGlobals,
  requireDashboard,
  SESSION_COOKIE,
  sessionFetch,
  signUpByApi,
  signUpInBrowser,
  startDashboardServer,
} from './harness.ts';

const dashboard = requireDashboard('dashboard security suite');
const PASSWORD = 'a long enough password';

interface ErrorBody {
  code: string;
  message: string;
}

/** A browser context already signed in with the test's session `session`. */
async function signedInPage(browser: Browser, url: string, session: ApiSession): Promise<Page> {
  const context = await newContext(browser);
  context.setDefaultTimeout(20_000);
  await addSessionCookie(context, url, session.cookie);
  const page = await context.newPage();
  await page.goto(url);
  await heading(page, 'Overview').waitFor();
  return page;
}

/** Whether `element` has the focus (the page's document.activeElement). */
function hasFocus(element: unknown): boolean {
  return element === (globalThis as unknown as PageGlobals).document.activeElement;
}

/** The focused element's outline, as drawn. */
function focusOutline(): { style: string; width: string } {
  const page = globalThis as unknown as PageGlobals;
  const style = page.getComputedStyle(page.document.activeElement);
  return { style: style.outlineStyle, width: style.outlineWidth };
}

if (dashboard.executablePath === null) {
  test('dashboard security', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('dashboard security (built-in plans)', () => {
    let server: DashboardServer;
    let browser: Browser;
    /** The first account: a key and a list, made through the API with its session. */
    let first: ApiSession;
    let firstListId = '';

    before(async () => {
      [server, browser] = await Promise.all([
        startDashboardServer({ plans: 'built-in' }),
        launchChromium(executablePath),
      ]);
      first = await signUpByApi(server.url, 'first@example.com', PASSWORD);
      const key = await sessionFetch(server.url, first, '/keys', {
        method: 'POST',
        body: JSON.stringify({ name: 'First account key' }),
      });
      assert.equal(key.status, 201, await key.text());
      const list = await sessionFetch(server.url, first, '/lists', {
        method: 'POST',
        body: JSON.stringify({
          name: 'First account list',
          emails: ['user1@accept.test', 'ghost@accept.test'],
        }),
      });
      const listBody = await list.text();
      assert.equal(list.status, 202, listBody);
      firstListId = (JSON.parse(listBody) as { id: string }).id;
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('runs on the built-in free plan', async () => {
      const response = await sessionFetch(server.url, first, '/account');
      const account = (await response.json()) as { plan: string; limits: { rate_limit_per_second: number } };
      assert.equal(account.plan, 'free');
      assert.equal(account.limits.rate_limit_per_second, 5);
    });

    it('the owner sees its list and key in the dashboard', async () => {
      const page = await signedInPage(browser, server.url, first);
      await navigate(page, 'Lists');
      await page.getByRole('article', { name: 'First account list' }).waitFor();
      await navigate(page, 'API keys');
      await page.getByRole('row', { name: /First account key/ }).waitFor();
      await page.goto(`${server.url}/lists/${firstListId}`);
      await heading(page, 'First account list').waitFor();
      await page.context().close();
    });

    it('a page loaded when the shared rate limit is spent waits for it instead of showing an error', async () => {
      const page = await signedInPage(browser, server.url, first);
      let listsRefused = false;
      page.on('response', (response) => {
        if (response.url().includes('/api/v1/lists?') && response.status() === 429) listsRefused = true;
      });
      // The page's own requests empty the bucket (the free plan's burst is 10), then the Lists link
      // is followed: its read queues behind them and finds nothing left.
      for (let attempt = 0; attempt < 3 && !listsRefused; attempt += 1) {
        await navigate(page, 'API keys');
        await page.evaluate(() => {
          const document = (globalThis as unknown as PageGlobals).document as unknown as {
            querySelector(selector: string): { click(): void };
          };
          for (let i = 0; i < 25; i += 1) void fetch('/api/v1/usage');
          document.querySelector('nav[aria-label="Main"] a[href="/lists"]').click();
        });
        await heading(page, 'Lists').waitFor();
        await page.getByRole('article', { name: 'First account list' }).waitFor();
      }
      assert.ok(listsRefused, 'the Lists page’s read was refused with 429 at least once');
      assert.equal(await page.getByRole('alert').count(), 0);
      await page.context().close();
    });

    it('another account sees none of them: empty states, not found, and 404 from the API', async () => {
      const context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await signUpInBrowser(page, server.url, 'second@example.com', PASSWORD);

      await navigate(page, 'Lists');
      await page.getByText('No lists yet.').waitFor();
      assert.equal(await page.getByRole('article').count(), 0);
      assert.equal(await page.getByText('First account list').count(), 0);

      await navigate(page, 'API keys');
      await page.getByText('You have no API keys yet.').waitFor();
      assert.equal(await page.getByRole('table').count(), 0);
      assert.equal(await page.getByText('First account key').count(), 0);

      await page.goto(`${server.url}/lists/${firstListId}`);
      await heading(page, 'List not found').waitFor();
      assert.equal(await page.getByText('First account list').count(), 0);

      const cookie = await browserSessionCookie(context);
      const second = { cookie, csrf: '', email: 'second@example.com', accountId: '' };
      const list = await sessionFetch(server.url, second, `/lists/${firstListId}`);
      assert.equal(list.status, 404);
      assert.equal(((await list.json()) as ErrorBody).code, 'not_found');
      const results = await sessionFetch(server.url, second, `/lists/${firstListId}/results`);
      assert.equal(results.status, 404);
      const keys = (await (await sessionFetch(server.url, second, '/keys')).json()) as { keys: unknown[] };
      assert.deepEqual(keys.keys, []);
      await context.close();
    });

    it('an unsafe request from a signed-in page needs that session’s CSRF token', async () => {
      const context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await signUpInBrowser(page, server.url, 'csrf@example.com', PASSWORD);

      // The page's own fetch: same origin, the session cookie goes along, Chromium sets Origin.
      const createKey = (token: string | null) =>
        page.evaluate(async (csrf) => {
          const response = await fetch('/api/v1/keys', {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(csrf === null ? {} : { 'x-csrf-token': csrf }),
            },
            body: JSON.stringify({ name: csrf === null ? 'no token' : 'some token' }),
          });
          return {
            status: response.status,
            body: (await response.json()) as { code?: string; name?: string },
          };
        }, token);

      const none = await createKey(null);
      assert.equal(none.status, 403);
      assert.equal(none.body.code, 'forbidden');

      const othersToken = await createKey(first.csrf);
      assert.equal(othersToken.status, 403);
      assert.equal(othersToken.body.code, 'forbidden');

      const listed = await page.evaluate(
        async () => (await (await fetch('/api/v1/keys')).json()) as { keys: unknown[] },
      );
      assert.deepEqual(listed.keys, [], 'no key was made');
      // The first account did not get one either.
      const firstKeys = (await (await sessionFetch(server.url, first, '/keys')).json()) as {
        keys: Array<{ name: string }>;
      };
      assert.deepEqual(
        firstKeys.keys.map((key) => key.name),
        ['First account key'],
      );

      // With its own token the same request is made: the refusals above were the token's doing.
      const own = await page.evaluate(
        async () => ((await (await fetch('/api/v1/session')).json()) as { csrf_token: string }).csrf_token,
      );
      const withOwn = await createKey(own);
      assert.equal(withOwn.status, 201);
      assert.equal(withOwn.body.name, 'some token');
      await context.close();
    });

    it('throttles wrong passwords on one address after the fifth, and says so', async () => {
      const target = await signUpByApi(server.url, 'throttled@example.com', PASSWORD);
      const context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await page.goto(server.url);
      await heading(page, 'Sign in to Mailvet').waitFor();
      const alert = page.getByRole('main').getByRole('alert');

      const attempt = async (password: string) => {
        await page.getByLabel('Email', { exact: true }).fill(target.email);
        await page.getByLabel('Password', { exact: true }).fill(password);
        const [response] = await Promise.all([
          page.waitForResponse(
            (each) =>
              new URL(each.url()).pathname === '/api/v1/session' && each.request().method() === 'POST',
          ),
          page.getByRole('button', { name: 'Sign in' }).click(),
        ]);
        return response.status();
      };

      for (let n = 1; n <= 10; n++) {
        const status = await attempt(`wrong password ${n}`);
        if (n <= 5) {
          assert.equal(status, 401, `attempt ${n} is judged on its password`);
          await alert.filter({ hasText: 'Wrong email or password' }).waitFor();
        } else {
          assert.equal(status, 429, `attempt ${n} is throttled`);
          await alert.filter({ hasText: 'Too many attempts' }).waitFor();
          assert.equal((await alert.textContent())?.trim(), 'Too many attempts: wait a little and try again');
        }
      }
      // Throttled means throttled: the right password is refused too, and the page stays signed out.
      assert.equal(await attempt(PASSWORD), 429);
      await alert.filter({ hasText: 'Too many attempts' }).waitFor();
      assert.equal(await heading(page, 'Sign in to Mailvet').count(), 1);
      assert.equal((await context.cookies()).filter((cookie) => cookie.name === SESSION_COOKIE).length, 0);
      await context.close();
    });

    it('signs in with the keyboard alone, the focus visible at each step', async () => {
      const user = await signUpByApi(server.url, 'keyboard@example.com', PASSWORD);
      const context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await page.goto(server.url);
      await heading(page, 'Sign in to Mailvet').waitFor();
      const email = page.getByLabel('Email', { exact: true });
      const password = page.getByLabel('Password', { exact: true });
      const signIn = page.getByRole('button', { name: 'Sign in' });

      let tabs = 0;
      while (!(await email.evaluate(hasFocus))) {
        assert.ok(++tabs <= 5, 'the Email field is among the first stops of Tab');
        await page.keyboard.press('Tab');
      }
      const ring = async (what: string) => {
        const outline = await page.evaluate(focusOutline);
        assert.notEqual(outline.style, 'none', `${what} shows where the focus is`);
        assert.notEqual(outline.width, '0px', `${what} shows where the focus is`);
      };
      await ring('the Email field');
      await page.keyboard.type(user.email);

      await page.keyboard.press('Tab');
      assert.ok(await password.evaluate(hasFocus), 'Tab goes from Email to Password');
      await ring('the Password field');
      // The ring follows the focus: the field left behind has none.
      assert.equal(
        await email.evaluate(
          (element) => (globalThis as unknown as PageGlobals).getComputedStyle(element).outlineStyle,
        ),
        'none',
      );
      await page.keyboard.type(PASSWORD);

      await page.keyboard.press('Tab');
      assert.ok(await signIn.evaluate(hasFocus), 'Tab goes from Password to Sign in');
      await ring('the Sign in button');

      await page.keyboard.press('Shift+Tab');
      assert.ok(await password.evaluate(hasFocus));
      await page.keyboard.press('Enter');
      await heading(page, 'Overview').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      assert.equal(await email.count(), 0);
      await context.close();
    });
  });
}
