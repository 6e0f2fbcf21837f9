/**
 * The Deliverability page in Chromium, against a real `mailvet serve` on the mail world: a domain
 * whose MX (the world's accept-known host) offers no STARTTLS and whose DMARC policy is p=none is
 * checked from the form; the page shows its grade and each finding with the fix written out. A
 * bad domain is refused beside its field. axe finds nothing serious on the report.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import {
  type DashboardServer,
  heading,
  launchChromium,
  navigate,
  newContext,
  requireDashboard,
  signUpInBrowser,
  startDashboardServer,
} from './harness.ts';

const dashboard = requireDashboard('dashboard deliverability suite');

if (dashboard.executablePath === null) {
  test('dashboard deliverability', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('the Deliverability page', () => {
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
        'deliver.test': { mx: [{ exchange: 'mx.accept.test', priority: 10 }], txt: ['v=spf1 mx -all'] },
        '_dmarc.deliver.test': { txt: ['v=DMARC1; p=none; rua=mailto:reports@deliver.test'] },
      });
      const context = await newContext(browser);
      context.setDefaultTimeout(30_000);
      page = await context.newPage();
      await signUpInBrowser(page, server.url, 'deliver@example.com', 'a long enough password');
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('checks a domain and shows its grade, each finding and the fix', async () => {
      await navigate(page, 'Deliverability');
      await page.getByLabel('Domain', { exact: true }).fill('Deliver.test');
      await page.getByRole('button', { name: 'Check domain' }).click();
      // 100 − 20 (no STARTTLS) − 6 × 3 (p=none, no DKIM key found, no PTR) = 62.
      await page.getByRole('heading', { level: 2, name: 'Grade D for deliver.test' }).waitFor();
      const findings = page.getByRole('list', { name: 'Findings' });
      const noTls = findings.getByRole('listitem').filter({ hasText: 'does not offer STARTTLS' });
      assert.match(await noTls.innerText(), /Mail hosts \(MX\)\s+\(failed\)/);
      assert.match(await noTls.innerText(), /Fix: Turn on STARTTLS in the mail server of mx\.accept\.test/);
      const dmarc = findings.getByRole('listitem').filter({ hasText: 'p=none' });
      assert.match(await dmarc.innerText(), /\(warning\).*\n?.*Fix: Once the aggregate reports show/s);
      const spf = findings.getByRole('listitem').filter({ hasText: 'one valid SPF record' });
      assert.doesNotMatch(await spf.innerText(), /Fix:/);
      // The report meets WCAG 2.1 AA as the other pages do (axe: nothing serious or critical).
      const results = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .setLegacyMode(true)
        .analyze();
      const grave = results.violations.filter(
        (each) => each.impact === 'serious' || each.impact === 'critical',
      );
      assert.deepEqual(
        grave.map((each) => `${each.id}: ${each.help}`),
        [],
      );
    });

    it('refuses a domain that is not one, beside its field', async () => {
      await page.getByLabel('Domain', { exact: true }).fill('192.0.2.1');
      await page.getByRole('button', { name: 'Check domain' }).click();
      const field = page.getByLabel('Domain', { exact: true });
      await page.getByText('An IP address is not a domain name').waitFor();
      assert.equal(await field.getAttribute('aria-invalid'), 'true');
      await heading(page, 'Deliverability').waitFor();
    });
  });
}
