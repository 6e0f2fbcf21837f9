/**
 * The Deliverability page when the service's resolver cannot be trusted, in Chromium against a
 * real `mailvet serve` on the mail world: with the world's DNS answering NXDOMAIN for every name
 * (the control names too), the page shows no grade and the one finding with its fix (mailvet
 * doctor, MAILVET_DNS_SERVERS), and no SPF, MX or blocklist finding. With the zones back, the same
 * domain is graded again.
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
} from './harness.ts';

const dashboard = requireDashboard('dashboard deliverability (untrusted resolver) suite');

if (dashboard.executablePath === null) {
  test('dashboard deliverability, untrusted resolver', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('the Deliverability page on an untrustworthy resolver', () => {
    let server: DashboardServer;
    let browser: Browser;
    let page: Page;

    before(async () => {
      // No blocklist zones: the world's DNS has none, and the real ones are not asked from tests.
      [server, browser] = await Promise.all([
        startDashboardServer({ env: { MAILVET_DNSBL_ZONES: '', MAILVET_DNSBL_DOMAIN_ZONES: '' } }),
        launchChromium(executablePath),
      ]);
      Object.assign(server.world.dns.zones, {
        'untrusted.test': { mx: [{ exchange: 'mx.accept.test', priority: 10 }], txt: ['v=spf1 mx -all'] },
      });
      const context = await newContext(browser);
      context.setDefaultTimeout(30_000);
      page = await context.newPage();
      await signUpInBrowser(page, server.url, 'untrusted@example.com', 'a long enough password');
      await navigate(page, 'Deliverability');
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('shows no grade and the one finding that says what to fix', async () => {
      const zones = server.world.dns.zones;
      const saved = { ...zones };
      for (const name of Object.keys(zones)) delete zones[name];
      try {
        await page.getByLabel('Domain', { exact: true }).fill('untrusted.test');
        await page.getByRole('button', { name: 'Check domain' }).click();
        const report = page.getByRole('region', { name: 'No grade for untrusted.test' });
        await report.waitFor();
        assert.match(await report.innerText(), /DNS resolver of this service cannot be trusted/);
        assert.doesNotMatch(await report.innerText(), /\/100|Grade [A-F]/);
        const items = page.getByRole('list', { name: 'Findings' }).getByRole('listitem');
        assert.equal(await items.count(), 1);
        const finding = await items.first().innerText();
        assert.match(finding, /DNS resolver\s+\(failed\)/);
        assert.match(finding, /Fix: .*mailvet doctor.*MAILVET_DNS_SERVERS/s);
      } finally {
        Object.assign(zones, saved);
      }
    });

    it('grades the domain again once the resolver answers', async () => {
      await page.getByRole('button', { name: 'Check domain' }).click();
      await page.getByRole('heading', { level: 2, name: /^Grade [A-F] for untrusted\.test$/ }).waitFor();
      const items = page.getByRole('list', { name: 'Findings' }).getByRole('listitem');
      assert.ok((await items.filter({ hasText: 'one valid SPF record' }).count()) === 1);
      assert.equal(await items.filter({ hasText: 'cannot be trusted' }).count(), 0);
    });
  });
}
