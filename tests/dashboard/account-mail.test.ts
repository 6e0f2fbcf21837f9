/**
 * Account mail in Chromium, with a mail relay (a real SMTP sink on loopback, asking for STARTTLS
 * and AUTH; the server trusts its throwaway certificate through NODE_EXTRA_CA_CERTS, as an operator
 * would a private CA's): a sign-up sees the
 * banner, is refused a verification and told why, has the link sent again, follows it and then
 * verifies; a forgotten password is reset from the sign-in page through the emailed link. Without
 * a relay the sign-in page offers no "Forgot password?".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { linkIn, type MailSink, startMailSink } from '../mailworld/mail-sink.ts';
import {
  type DashboardServer,
  heading,
  launchChromium,
  navigate,
  newContext,
  requireDashboard,
  signUpByApi,
  signUpInBrowser,
  startDashboardServer,
} from './harness.ts';

const dashboard = requireDashboard('dashboard account mail suite');
const PASSWORD = 'a long enough password';
const RELAY_CA = fileURLToPath(new URL('../fixtures/tls/mailworld-cert.pem', import.meta.url));

async function freshPage(browser: Browser): Promise<Page> {
  const context = await newContext(browser);
  context.setDefaultTimeout(20_000);
  return context.newPage();
}

if (dashboard.executablePath === null) {
  test('dashboard account mail', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;

  describe('dashboard account mail, with a relay', () => {
    let sink: MailSink;
    let server: DashboardServer;
    let browser: Browser;
    before(async () => {
      sink = await startMailSink({ starttls: true, auth: { user: 'mailvet', password: 'relay password' } });
      [server, browser] = await Promise.all([
        startDashboardServer({
          env: {
            MAILVET_MAIL_URL: sink.url,
            MAILVET_MAIL_FROM: 'Mailvet <no-reply@mailvet.test>',
            NODE_EXTRA_CA_CERTS: RELAY_CA,
          },
        }),
        launchChromium(executablePath),
      ]);
    });
    after(async () => {
      await browser?.close();
      await server?.close();
      await sink?.close();
    });

    it('a sign-up is refused verifications until it follows the emailed link, then verifies', async () => {
      const page = await freshPage(browser);
      const email = 'newcomer@example.com';
      await signUpInBrowser(page, server.url, email, PASSWORD);
      const banner = page.getByRole('region', { name: 'Address confirmation' });
      await banner.getByText('Confirm your email address to start verifying.').waitFor();
      await banner.getByText(email, { exact: false }).waitFor();

      await navigate(page, 'Verify', 'Verify an address');
      await page.getByLabel('Email address').fill('alice@accept.test');
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await page
        .getByRole('alert')
        .getByText(/Confirm your email address first/)
        .waitFor();
      assert.equal(await page.getByRole('heading', { name: /^Result for/ }).count(), 0);

      const first = await sink.next((message) => message.to.includes(email));
      assert.equal(first.secure, true, 'sent under STARTTLS');
      await banner.getByRole('button', { name: 'Resend' }).click();
      await banner
        .getByRole('status')
        .getByText(/^Sent: look for it at newcomer@example\.com/)
        .waitFor();
      const second = await sink.next((message) => message.to.includes(email) && message !== first);
      const link = linkIn(second, '/confirm');
      assert.equal(link.origin, server.url);

      await page.goto(link.toString());
      await heading(page, 'Confirm your email address').waitFor();
      await page.getByText('Your email address is confirmed').waitFor();
      assert.ok(!page.url().includes('token='), 'the token leaves the address bar');
      await banner.waitFor({ state: 'detached' });

      await page.getByRole('link', { name: 'Verify an address' }).click();
      await heading(page, 'Verify an address').waitFor();
      await page.getByLabel('Email address').fill('alice@accept.test');
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await page.getByRole('heading', { name: 'Result for alice@accept.test' }).waitFor();
    });

    it('a forgotten password is reset through the emailed link, and signs in', async () => {
      const email = 'forgetful@example.com';
      await signUpByApi(server.url, email, PASSWORD);
      const page = await freshPage(browser);
      await page.goto(server.url);
      await heading(page, 'Sign in to Mailvet').waitFor();
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await heading(page, 'Reset your password').waitFor();
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await page.getByRole('status').getByText(`If an account uses ${email}`, { exact: false }).waitFor();

      const message = await sink.next((each) => each.to.includes(email) && /Reset/.test(each.subject));
      await page.goto(linkIn(message, '/reset-password').toString());
      await heading(page, 'Choose a new password').waitFor();
      assert.ok(!page.url().includes('token='), 'the token leaves the address bar');
      await page.getByLabel('New password').fill('short');
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByText('Use at least 10 characters').waitFor();
      await page.getByLabel('New password').fill('a brand new password');
      await page.getByRole('button', { name: 'Set password' }).click();

      await heading(page, 'Sign in to Mailvet').waitFor();
      await page.getByText('Your password is set: sign in with it.').waitFor();
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('Wrong email or password').waitFor();
      await page.getByLabel('Password', { exact: true }).fill('a brand new password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading(page, 'Overview').waitFor();
    });
  });

  describe('dashboard account mail, without a relay', () => {
    let server: DashboardServer;
    let browser: Browser;
    before(async () => {
      [server, browser] = await Promise.all([startDashboardServer(), launchChromium(executablePath)]);
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('offers no "Forgot password?" on the sign-in page', async () => {
      const page = await freshPage(browser);
      const settings = page.waitForResponse((response) =>
        response.url().endsWith('/api/v1/session/settings'),
      );
      await page.goto(server.url);
      await heading(page, 'Sign in to Mailvet').waitFor();
      assert.deepEqual(await (await settings).json(), { signup: 'open', password_reset: false });
      await page.getByRole('link', { name: 'Create an account' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Forgot password?' }).count(), 0);
    });
  });
}
