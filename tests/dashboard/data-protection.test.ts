/**
 * Data protection in the dashboard, in Chromium against a real server: the Account page shows how
 * long finished lists keep their results and sets it within the plan (a refused value shows the
 * API's message, and nothing changes), names where data protection is described; a Mailchimp run
 * whose list the retention expired says so instead of offering results that answer 410; and axe
 * finds nothing serious on the Account and Audit log pages.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  type DashboardServer,
  heading,
  keyFetch,
  launchChromium,
  navigate,
  newContext,
  type PopulatedAccount,
  populateAccount,
  requireDashboard,
  settled,
  startDashboardServer,
  waitUntil,
} from './harness.ts';

const dashboard = requireDashboard('dashboard data protection suite');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const DAY_MS = 24 * 60 * 60 * 1000;

/** axe's serious and critical findings on the page, described. */
async function graveViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode(true).analyze();
  assert.ok(results.passes.length > 0, 'axe ran its checks');
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}; at ${violation.nodes
          .map((node) => JSON.stringify(node.target))
          .join(', ')}`,
    );
}

if (dashboard.executablePath === null) {
  test('dashboard data protection', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('data protection in the dashboard', () => {
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let account: PopulatedAccount;

    const section = () => page.getByRole('region', { name: 'Data protection' });
    const daysField = () => section().getByLabel('Keep results for (days)');
    const api = async <T>(path: string): Promise<T> => {
      const response = await keyFetch(server.url, account.key, path);
      assert.equal(response.status, 200, `GET ${path}`);
      return (await response.json()) as T;
    };

    before(async () => {
      [server, browser] = await Promise.all([
        // The retention task runs with the list sweep: every 300 ms here, so an expiry shows at once.
        startDashboardServer({ mailchimp: true, env: { MAILVET_LIST_SWEEP_MS: '300' } }),
        launchChromium(executablePath),
      ]);
      context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      page = await context.newPage();
      account = await populateAccount(page, server);
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('shows the retention, sets it, and keeps it across a reload', async () => {
      await navigate(page, 'Account');
      await section().getByText('30 days').first().waitFor();
      await section().getByText('(the server’s default)', { exact: false }).waitFor();
      assert.equal(await daysField().inputValue(), '30');
      // The document itself, served by the server it describes.
      const document = section().getByRole('link', { name: 'Data protection' });
      assert.equal(await document.getAttribute('href'), '/docs/data-protection.md');
      const served = await fetch(`${server.url}/docs/data-protection.md`);
      assert.equal(served.status, 200);
      assert.match(served.headers.get('content-type') ?? '', /^text\/plain; charset=utf-8/);
      assert.match(await served.text(), /^# Data protection/m);
      assert.equal(
        await section().getByRole('link', { name: 'API reference' }).getAttribute('href'),
        '/docs',
      );

      await daysField().fill('7');
      await section().getByRole('button', { name: 'Save retention' }).click();
      await section()
        .getByRole('status')
        .getByText('Saved: finished lists keep their results 7 days.')
        .waitFor();

      await page.reload();
      await heading(page, 'Account').waitFor();
      await section().getByText('7 days', { exact: true }).waitFor();
      assert.equal(await daysField().inputValue(), '7');
      assert.equal(await section().getByText('(the server’s default)', { exact: false }).count(), 0);
      assert.equal((await api<{ retention_days: number }>('/account')).retention_days, 7);
    });

    it("a value above the plan's maximum shows the API's message and changes nothing", async () => {
      await daysField().fill('45');
      await section().getByRole('button', { name: 'Save retention' }).click();
      await section().getByText('Your plan keeps results at most 30 days').waitFor();
      assert.equal(await daysField().getAttribute('aria-invalid'), 'true');
      assert.ok(
        await daysField().evaluate((field) => field === field.ownerDocument.activeElement),
        'focus on the field at fault',
      );
      await daysField().fill('');
      await section().getByRole('button', { name: 'Save retention' }).click();
      await section().getByText('Enter a whole number of days.').waitFor();
      assert.equal((await api<{ retention_days: number }>('/account')).retention_days, 7);
    });

    it('axe finds nothing serious on the Account page and the Audit log page', async () => {
      await page.reload();
      await heading(page, 'Account').waitFor();
      await settled(page);
      assert.deepEqual(await graveViolations(page), [], 'Account page');
      await navigate(page, 'Audit log');
      await page.getByRole('rowheader', { name: 'Account settings changed' }).first().waitFor();
      await settled(page);
      assert.deepEqual(await graveViolations(page), [], 'Audit log page');
    });

    it('a run whose list the retention expired says so, and offers no results', async () => {
      const { integrations } = await api<{ integrations: Array<{ id: string; account_name: string }> }>(
        '/integrations',
      );
      const integration = integrations.find((each) => each.account_name === account.mailchimp!.connected)!;
      const { runs } = await api<{ runs: Array<{ id: string; list_id: string }> }>(
        `/integrations/${integration.id}/runs`,
      );
      const run = runs[0]!;
      await navigate(page, 'Integrations');
      const card = page.getByRole('article', { name: account.mailchimp!.connected });
      const newestRun = card.getByRole('region', { name: 'Runs', exact: true }).getByRole('article').first();
      await newestRun.getByRole('link', { name: 'Results' }).waitFor();

      // The run's list finished ten days ago, as far as the database knows: past the 7 days set above.
      const db = new Database(join(server.dataDir, 'mailvet.db'));
      try {
        db.pragma('busy_timeout = 5000');
        const tenDaysAgo = new Date(Date.now() - 10 * DAY_MS).toISOString();
        db.prepare('update lists set finished_at = ? where id = ?').run(tenDaysAgo, run.list_id);
      } finally {
        db.close();
      }
      await waitUntil(
        async () =>
          (await api<{ results_expired: boolean }>(`/integrations/${integration.id}/runs/${run.id}`))
            .results_expired,
        "the retention to expire the run's list",
      );
      const results = await keyFetch(server.url, account.key, `/lists/${run.list_id}/results`);
      assert.equal(results.status, 410);

      await page.reload();
      await heading(page, 'Integrations').waitFor();
      await newestRun
        .getByText(/Its results were deleted on .+ at the end of the account’s retention/)
        .waitFor();
      assert.equal(await newestRun.getByRole('link', { name: 'Results' }).count(), 0);
      assert.deepEqual(await graveViolations(page), [], 'Integrations page');
    });
  });
}
