/**
 * `npm run screenshots`: a PNG of every dashboard page at 1280×800 (desktop) and 390×844 (phone),
 * written to docs/screenshots/<page>-<width>.png. Starts what the browser tests start (the mail
 * world and a real `mailvet serve` on a fresh data dir, tests/dashboard/harness.ts), signs up,
 * makes a key, verifies a few addresses and runs a list so every page has content, then opens each
 * page in Debian's Chromium (`/usr/bin/chromium`, or MAILVET_CHROMIUM) in the light scheme.
 * Needs the built dashboard (`npm run build`). Run from the repository root.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import {
  addSessionCookie,
  browserSessionCookie,
  launchChromium,
  newContext,
  populateAccount,
  requireDashboard,
  SCREENS,
  startDashboardServer,
  waitUntil,
} from '../tests/dashboard/harness.ts';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/** The charts' shapes, to tell when their entry animation has ended. */
const CHART_SHAPES = `JSON.stringify([...document.querySelectorAll('.recharts-surface path, .recharts-surface rect')]
  .map((shape) => [shape.getAttribute('d'), shape.getAttribute('width'), shape.getAttribute('height')]))`;

/** Waits until the charts' shapes stop moving (read the same a few times in a row). */
async function chartsAtRest(page: Page): Promise<void> {
  let last = '';
  let same = 0;
  await waitUntil(
    async () => {
      const now = (await page.evaluate(CHART_SHAPES)) as string;
      same = now === last ? same + 1 : 0;
      last = now;
      return same >= 4;
    },
    'the charts to stop moving',
    10_000,
  );
}

const availability = requireDashboard('screenshots');
if (availability.executablePath === null) {
  console.error(availability.skipReason);
  process.exit(1);
}

await mkdir(OUT, { recursive: true });
const [server, browser] = await Promise.all([
  startDashboardServer({ plans: 'generous' }),
  launchChromium(availability.executablePath),
]);
try {
  const setup = await newContext(browser);
  setup.setDefaultTimeout(20_000);
  const account = await populateAccount(await setup.newPage(), server, {
    email: 'jane@acme.example',
    keyName: 'CRM sync',
    listName: 'Newsletter export',
  });
  const cookie = await browserSessionCookie(setup);
  await setup.close();

  for (const viewport of VIEWPORTS) {
    for (const signedIn of [false, true]) {
      const context = await newContext(browser, { viewport, colorScheme: 'light', reducedMotion: 'reduce' });
      context.setDefaultTimeout(20_000);
      if (signedIn) await addSessionCookie(context, server.url, cookie);
      const page = await context.newPage();
      for (const screen of SCREENS.filter((each) => each.signedIn === signedIn)) {
        await screen.open(page, server.url, account);
        await chartsAtRest(page);
        // The focus ring a navigation leaves on the first field would be in the picture.
        await page.evaluate('document.activeElement?.blur()');
        const path = join(OUT, `${screen.name}-${viewport.width}.png`);
        await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
        console.log(`wrote ${path}`);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
