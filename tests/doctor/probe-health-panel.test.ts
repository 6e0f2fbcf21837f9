/**
 * The dashboard's "Probe host health" panel on the Account page, in Chromium against `mailvet
 * serve`: an operator (marked with `mailvet users update --operator`) sees every finding and can
 * check again; another user sees no panel at all, and their page never asks for the report.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  type DashboardServer,
  launchChromium,
  navigate,
  newContext,
  requireDashboard,
  signUpInBrowser,
  startDashboardServer,
} from '../dashboard/harness.ts';

const dashboard = requireDashboard('probe host health panel');
const OPERATOR = 'ops@example.com';
const PASSWORD = 'correct horse battery';

if (dashboard.executablePath === null) {
  test('probe host health panel', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('the Account page’s probe host health panel', () => {
    let server: DashboardServer;
    let browser: Browser;

    before(async () => {
      [server, browser] = await Promise.all([startDashboardServer(), launchChromium(executablePath)]);
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    /** Signs `email` up in a new page and returns it, with the paths it requests from then on. */
    async function signedUp(email: string): Promise<{ page: Page; paths: string[] }> {
      const context = await newContext(browser);
      context.setDefaultTimeout(30_000);
      const page = await context.newPage();
      await signUpInBrowser(page, server.url, email, PASSWORD);
      const paths: string[] = [];
      page.on('request', (request) => paths.push(new URL(request.url()).pathname));
      return { page, paths };
    }

    /** Signs `email` up and opens the Account page once its doctor request has been answered. */
    async function accountPage(email: string): Promise<{ page: Page; doctorStatus: number }> {
      const { page } = await signedUp(email);
      await server.makeOperator(email);
      // The dashboard reads the session when it loads.
      await page.reload();
      const answered = page.waitForResponse((response) => response.url().includes('/api/v1/doctor'));
      await navigate(page, 'Account');
      return { page, doctorStatus: (await answered).status() };
    }

    it('shows an operator every finding, with a button to check again', async () => {
      const { page, doctorStatus } = await accountPage(OPERATOR);
      assert.equal(doctorStatus, 200, server.problems());
      const panel = page.getByRole('region', { name: 'Probe host health' });
      await panel.waitFor();
      const findings = panel.getByRole('list', { name: 'Findings' }).getByRole('listitem');
      assert.equal(await findings.count(), 7);
      // Each finding leads with its mark (hidden from assistive technology) and its check's name.
      const names = (await findings.locator('strong').allTextContents()).map((text) =>
        text.replace(/^\S+\s/, ''),
      );
      assert.deepEqual(names, [
        'Port 25',
        'Egress address',
        'HELO name',
        'Reverse DNS',
        'Blocklists',
        'SPF',
        'DNS resolver',
      ]);
      assert.match((await panel.textContent()) ?? '', /\d+ passed, \d+ warned, \d+ failed, \d+ skipped/);
      const again = page.waitForResponse((response) => response.url().includes('/api/v1/doctor?refresh=1'));
      await panel.getByRole('button', { name: 'Check again' }).click();
      assert.equal((await again).status(), 200);
      await page.context().close();
    });

    it('shows no panel to a user who is not an operator, and does not ask for the report', async () => {
      const { page, paths } = await signedUp('someone@example.com');
      await navigate(page, 'Account');
      await page.getByText('Requests per second').waitFor();
      await page.getByRole('heading', { name: 'Change password' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Probe host health' }).count(), 0);
      assert.ok(!paths.includes('/api/v1/doctor'), `requests: ${paths.join(', ')}`);
      await page.context().close();
    });
  });
}
