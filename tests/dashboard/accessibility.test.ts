/**
 * axe-core (WCAG 2.0 and 2.1, A and AA) on every page of the dashboard, signed out and signed in
 * with content on each page (a verification result, a completed list, a key, a connected and a
 * disconnected Mailchimp account; the charts' tables opened), in the light and the dark colour
 * scheme. No violation of impact serious or critical.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  addSessionCookie,
  browserSessionCookie,
  type DashboardServer,
  launchChromium,
  newContext,
  openNumbers,
  type PageGlobals,
  type PopulatedAccount,
  populateAccount,
  requireDashboard,
  SCREENS,
  startDashboardServer,
} from './harness.ts';

const dashboard = requireDashboard('dashboard accessibility suite');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

type Scheme = 'light' | 'dark';

if (dashboard.executablePath === null) {
  test('dashboard accessibility', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('dashboard accessibility (axe, WCAG 2.1 A and AA)', () => {
    let server: DashboardServer;
    let browser: Browser;
    let account: PopulatedAccount;
    let cookie = '';
    const contexts = new Map<string, BrowserContext>();

    before(async () => {
      [server, browser] = await Promise.all([
        // Mailchimp accounts on the Integrations page: one with audiences, one disconnected.
        startDashboardServer({ plans: 'generous', mailchimp: true }),
        launchChromium(executablePath),
      ]);
      const setup = await newContext(browser);
      setup.setDefaultTimeout(20_000);
      account = await populateAccount(await setup.newPage(), server);
      cookie = await browserSessionCookie(setup);
      await setup.close();
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    /** One page per scheme and signed-in state, reused screen after screen. */
    async function pageFor(scheme: Scheme, signedIn: boolean): Promise<Page> {
      const name = `${scheme}-${signedIn}`;
      let context = contexts.get(name);
      if (context === undefined) {
        context = await newContext(browser, { colorScheme: scheme });
        context.setDefaultTimeout(20_000);
        if (signedIn) await addSessionCookie(context, server.url, cookie);
        await context.newPage();
        contexts.set(name, context);
      }
      return context.pages()[0]!;
    }

    for (const scheme of ['light', 'dark'] as const) {
      for (const screen of SCREENS) {
        it(`${screen.title}, ${scheme} scheme`, async () => {
          const page = await pageFor(scheme, screen.signedIn);
          await screen.open(page, server.url, account);
          await openNumbers(page);
          const prefersDark = await page.evaluate(
            () => (globalThis as unknown as PageGlobals).matchMedia('(prefers-color-scheme: dark)').matches,
          );
          assert.equal(prefersDark, scheme === 'dark', `the page is in the ${scheme} scheme`);
          // Legacy mode runs axe in the page alone, without the blank page it otherwise opens to
          // merge frames' results: the dashboard has no frames, and it halves the time.
          const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode(true).analyze();
          const grave = results.violations.filter(
            (violation) => violation.impact === 'serious' || violation.impact === 'critical',
          );
          const described = grave.map(
            (violation) =>
              `${violation.id} (${violation.impact}): ${violation.help}; at ${violation.nodes
                .map((node) => JSON.stringify(node.target))
                .join(', ')}`,
          );
          assert.deepEqual(described, [], `axe on ${screen.title} (${scheme}):\n${described.join('\n')}`);
          assert.ok(results.passes.length > 0, 'axe ran its checks');
        });
      }
    }
  });
}
