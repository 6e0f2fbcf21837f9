/**
 * Every page of the dashboard on a phone, 390 CSS pixels wide, with content on it: an account that
 * signed up, made a key, verified addresses, ran a list, connected the Mailchimp emulator (an
 * audience run and scheduled, a draft campaign) and checked a sending domain. On each page, with
 * its forms open (Validate now, a new schedule, a campaign's check), no page scrolls sideways and
 * every visible button, link and field is within the screen: a person never pans to reach one. A
 * control inside a box that scrolls sideways on its own counts only if that box can bring it into
 * view.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  type DashboardServer,
  heading,
  launchChromium,
  newContext,
  type PopulatedAccount,
  populateAccount,
  requireDashboard,
  SCREENS,
  settled,
  startDashboardServer,
} from './harness.ts';

const dashboard = requireDashboard('dashboard narrow-screens suite');

const WIDTH = 390;
const PHONE = { width: WIDTH, height: 844 };

/**
 * Run in the page: what sticks out past the screen's right (or left) edge. The page's own width,
 * then each visible control out of view and not reachable by scrolling a box of its own.
 */
const OVERFLOW = `(() => {
  const width = window.innerWidth;
  const found = [];
  const page = document.documentElement.scrollWidth;
  if (page > width) found.push('the page is ' + page + ' px wide');
  const name = (el) =>
    el.tagName.toLowerCase() + ' "' + (el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || '').trim().replace(/\\s+/g, ' ').slice(0, 60) + '"';
  const controls = document.querySelectorAll('button, a[href], input, select, textarea, summary');
  for (const el of controls) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    if (box.left >= -0.5 && box.right <= width + 0.5) continue;
    let region = el.parentElement;
    while (region !== null) {
      const overflow = getComputedStyle(region).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && region.scrollWidth > region.clientWidth) break;
      region = region.parentElement;
    }
    if (region !== null) {
      const frame = region.getBoundingClientRect();
      const left = box.left - frame.left + region.scrollLeft;
      const inFrame = frame.left >= -0.5 && frame.right <= width + 0.5;
      if (inFrame && left >= -0.5 && left + box.width <= region.scrollWidth + 0.5) continue;
    }
    found.push(name(el) + ' spans x ' + Math.round(box.left) + '..' + Math.round(box.right));
  }
  return found;
})()`;

async function overflowOn(page: Page): Promise<string[]> {
  return (await page.evaluate(OVERFLOW)) as string[];
}

if (dashboard.executablePath === null) {
  test('dashboard narrow screens', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe(`every page at ${WIDTH} px wide`, () => {
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let account: PopulatedAccount;

    before(async () => {
      [server, browser] = await Promise.all([
        // No blocklist zones: the world's DNS has none, and the real ones are not asked from tests.
        startDashboardServer({
          plans: 'generous',
          mailchimp: true,
          env: { MAILVET_DNSBL_ZONES: '', MAILVET_DNSBL_DOMAIN_ZONES: '' },
        }),
        launchChromium(executablePath),
      ]);
      Object.assign(server.world.dns.zones, {
        'deliver.test': { mx: [{ exchange: 'mx.accept.test', priority: 10 }], txt: ['v=spf1 mx -all'] },
        '_dmarc.deliver.test': { txt: ['v=DMARC1; p=none; rua=mailto:reports@deliver.test'] },
      });
      // Everything is done on the phone: the sign-up, the key, and the pages after.
      context = await newContext(browser, { viewport: PHONE });
      // Hang guards for every action and wait below, not timing assertions.
      context.setDefaultTimeout(30_000);
      page = await context.newPage();
      account = await populateAccount(page, server, { listName: 'A rather long list name for a phone.csv' });
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    for (const screen of SCREENS) {
      it(`${screen.title}: nothing past the screen’s edge`, async () => {
        let on = page;
        if (!screen.signedIn) {
          const signedOut = await newContext(browser, { viewport: PHONE });
          signedOut.setDefaultTimeout(30_000);
          on = await signedOut.newPage();
        }
        await screen.open(on, server.url, account);
        assert.deepEqual(await overflowOn(on), [], `${screen.title} at ${WIDTH} px`);
        if (screen.name === 'integrations') {
          // The schedule form opened last; the "Validate now" form and its actions are there too.
          const card = on.getByRole('article', { name: account.mailchimp?.connected ?? '' });
          await card.getByRole('button', { name: 'Exclude invalid from this campaign' }).click();
          await card.getByRole('button', { name: 'Yes, leave them out' }).waitFor();
          assert.deepEqual(await overflowOn(on), [], 'with the exclusion asked to be confirmed');
          await card.getByRole('button', { name: 'No, keep it' }).click();
        }
        if (!screen.signedIn) await on.context().close();
      });
    }

    it('deliverability, with a report: nothing past the screen’s edge', async () => {
      await page.goto(`${server.url}/deliverability`);
      await heading(page, 'Deliverability').waitFor();
      await page.getByLabel('Domain', { exact: true }).fill('deliver.test');
      await page.getByRole('button', { name: 'Check domain' }).click();
      await page.getByRole('heading', { level: 2, name: /^Grade [A-F] for deliver\.test$/ }).waitFor();
      await settled(page);
      assert.deepEqual(await overflowOn(page), [], `deliverability at ${WIDTH} px`);
    });

    it('a list’s results table pages at the phone’s width, a row to a block', async () => {
      await page.goto(`${server.url}/lists/${account.listId}`);
      const table = page.getByRole('table', { name: /^Results/ });
      await table.waitFor();
      await page.getByText(/^Rows 1–25 of [\d,]+$/).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText(/^Rows 26–50 of [\d,]+$/).waitFor();
      assert.deepEqual(await overflowOn(page), [], 'the second page');
      const row = table.getByRole('row').nth(1);
      const box = await row.boundingBox();
      assert.ok(box !== null && box.x >= 0 && box.x + box.width <= WIDTH, JSON.stringify(box));
    });
  });
}
