/**
 * The Audit log page in Chromium against a real server: reached by its navigation link, it shows
 * the account's changes newest first (who, from where, what changed before and after), fifty at a
 * time with "Show older entries" until there are no more, and a filter by action.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  browserSessionCookie,
  createKeyInBrowser,
  type DashboardServer,
  launchChromium,
  navigate,
  newContext,
  requireDashboard,
  sessionFetch,
  sessionFromCookie,
  signUpInBrowser,
  startDashboardServer,
  waitUntil,
} from './harness.ts';

const dashboard = requireDashboard('dashboard audit log suite');
const EMAIL = 'auditor@example.com';
const RENAMES = 55;

if (dashboard.executablePath === null) {
  test('dashboard audit log', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('the Audit log page', () => {
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;

    before(async () => {
      [server, browser] = await Promise.all([startDashboardServer(), launchChromium(executablePath)]);
      context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      page = await context.newPage();
      await signUpInBrowser(page, server.url, EMAIL, 'a long enough password');
      await createKeyInBrowser(page, 'Key 0');
      // Enough changes for two pages: the key renamed again and again, with the page's own session.
      const session = await sessionFromCookie(server.url, EMAIL, await browserSessionCookie(context));
      const keys = (await (await sessionFetch(server.url, session, '/keys')).json()) as {
        keys: Array<{ id: string }>;
      };
      const keyId = keys.keys[0]!.id;
      for (let n = 1; n <= RENAMES; n++) {
        const renamed = await sessionFetch(server.url, session, `/keys/${keyId}`, {
          method: 'PATCH',
          body: JSON.stringify({ name: `Key ${n}` }),
        });
        assert.equal(renamed.status, 200, await renamed.text());
      }
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    const rows = () => page.locator('table.audit-table tbody tr');

    it('lists the newest fifty changes, then the older ones, with who, from where and what changed', async () => {
      await navigate(page, 'Audit log');
      await page.getByRole('status').getByText('The newest 50 entries; older ones follow.').waitFor();
      assert.equal(await rows().count(), 50);
      const newest = rows().first();
      assert.equal(await newest.getByRole('rowheader').textContent(), 'API key changed');
      assert.match((await newest.textContent()) ?? '', new RegExp(`User · ${EMAIL}`));
      assert.match((await newest.textContent()) ?? '', /127\.0\.0\.1/);
      await newest.getByText(`name: Key ${RENAMES - 1} → Key ${RENAMES}`).waitFor();

      await page.getByRole('button', { name: 'Show older entries' }).click();
      const total = RENAMES + 2;
      await page.getByRole('status').getByText(`${total} entries, all there are.`).waitFor();
      assert.equal(await rows().count(), total);
      assert.equal(await page.getByRole('button', { name: 'Show older entries' }).count(), 0);
      const oldest = rows().last();
      assert.equal(await oldest.getByRole('rowheader').textContent(), 'Account created');
      await oldest.getByText(`owner: ${EMAIL}`).waitFor();
    });

    it('filters by action', async () => {
      await page.getByLabel('Action', { exact: true }).selectOption({ label: 'API key created' });
      await page.getByRole('status').getByText('1 entry of “API key created”, all there are.').waitFor();
      await waitUntil(async () => (await rows().count()) === 1, 'one row');
      const created = rows().first();
      assert.equal(await created.getByRole('rowheader').textContent(), 'API key created');
      await created.getByText('name: Key 0').waitFor();
      await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Run cancelled' });
      await page.getByRole('status').getByText('No entries of “Run cancelled”.').waitFor();
      assert.equal(await page.getByRole('table').count(), 0);
      await page.getByLabel('Action', { exact: true }).selectOption({ label: 'All actions' });
      await page.getByRole('status').getByText('The newest 50 entries; older ones follow.').waitFor();
    });
  });
}
