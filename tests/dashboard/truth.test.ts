/**
 * The dashboard tells the truth about what was learnt, in Chromium against `mailvet serve`:
 * - a server whose resolver is dead shows, on every signed-in page, a banner saying verdicts are
 *   unreliable and what to do; a server on a healthy mail world shows none;
 * - a result whose mailbox was never checked (our DNS failed, greylisted, blocked) reads
 *   "Not checked" and "Not confirmed", where a confirmed mailbox still reads "Yes";
 * - a list whose last rows wait for a re-check (greylisting) says so on its card, with how many rows
 *   and when, as the list's `rechecks` field does, and the note goes once the list completes.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WORLD_DOMAINS } from '../mailworld/mail-world.ts';
import {
  browserSessionCookie,
  type DashboardServer,
  heading,
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

const dashboard = requireDashboard('dashboard truth suite');
const PASSWORD = 'correct horse battery';
const BANNER_TEXT = 'Verdicts are unreliable right now';

/** A loopback UDP port nothing listens on: a resolver there answers every query with a refusal. */
async function deadResolver(): Promise<string> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return `127.0.0.1:${port}`;
}

/** Verifies `address` on the Verify page and returns its result card. */
async function verify(page: Page, address: string) {
  await page.getByLabel('Email address').fill(address);
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await page.getByRole('heading', { name: `Result for ${address}` }).waitFor();
  return page.getByRole('region', { name: `Result for ${address}` });
}

/** The words of a row of the result's checks table, by its label. */
async function checkValue(result: ReturnType<Page['getByRole']>, label: string): Promise<string> {
  const row = result.getByRole('row', { name: new RegExp(`^${label}`) }).first();
  return (await row.getByRole('cell').innerText()).trim();
}

if (dashboard.executablePath === null) {
  test('dashboard truth', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;

  describe('a server whose DNS resolver is dead', () => {
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;

    before(async () => {
      const servers = await deadResolver();
      [server, browser] = await Promise.all([
        startDashboardServer({ env: { MAILVET_DNS_SERVERS: servers } }),
        launchChromium(executablePath),
      ]);
      context = await newContext(browser);
      // Hang guards, not timing assertions.
      context.setDefaultTimeout(20_000);
      page = await context.newPage();
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('says on every signed-in page that verdicts are unreliable, and what to do', async () => {
      await signUpInBrowser(page, server.url, 'owner@example.com', PASSWORD);
      const banner = page.getByRole('status').filter({ hasText: BANNER_TEXT });
      await banner.waitFor();
      const words = await banner.innerText();
      assert.match(words, /mailvet doctor/);
      assert.match(words, /MAILVET_DNS_SERVERS/);
      // Still there on another page, reached without a page load.
      await navigate(page, 'Account');
      await banner.waitFor();
      await navigate(page, 'Verify', 'Verify an address');
      await banner.waitFor();
    });

    it('shows a result our DNS could not make as not checked and not confirmed', async () => {
      if (new URL(page.url()).pathname !== '/verify') await navigate(page, 'Verify', 'Verify an address');
      const result = await verify(page, `alice@${WORLD_DOMAINS['accept-known']}`);
      await result.getByText('dns_error', { exact: true }).waitFor();
      assert.equal(await checkValue(result, 'Mailbox exists'), 'Not checked');
      assert.equal(await checkValue(result, 'Domain exists'), 'Not known: the DNS lookup failed');
      await result.getByText('Not confirmed', { exact: true }).waitFor();
      assert.equal(await result.getByText(/Likely to arrive/).count(), 0, 'no promise of delivery');
    });
  });

  describe('a server on a healthy mail world', () => {
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;

    before(async () => {
      [server, browser] = await Promise.all([
        startDashboardServer({
          env: {
            // A greylisted row is checked again this long after: the world's greylisting host
            // accepts a retry after a second, so the re-check confirms it. Long enough for the card
            // to be seen waiting on a loaded machine (it is read once a second).
            MAILVET_LIST_RECHECK_MS: '15000',
          },
        }),
        launchChromium(executablePath),
      ]);
      context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      page = await context.newPage();
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('shows no resolver banner once the server said its resolver is fine', async () => {
      const readiness = page.waitForResponse((response) => new URL(response.url()).pathname === '/readyz');
      await signUpInBrowser(page, server.url, 'owner@example.com', PASSWORD);
      const body = (await (await readiness).json()) as { checks: Record<string, string> };
      assert.equal(body.checks.dns, 'ok', JSON.stringify(body));
      await heading(page, 'Overview').waitFor();
      assert.equal(await page.getByText(BANNER_TEXT).count(), 0);
    });

    it('shows a greylisted or blocked mailbox as not checked, and a confirmed one as existing', async () => {
      await navigate(page, 'Verify', 'Verify an address');
      for (const domain of [WORLD_DOMAINS.greylist, WORLD_DOMAINS.blocklist]) {
        const result = await verify(page, `user1@${domain}`);
        assert.equal(await checkValue(result, 'Mailbox exists'), 'Not checked', domain);
        await result.getByText('Not confirmed', { exact: true }).waitFor();
        // The server's reply is shown, but not as what decided the (unknown) mailbox.
        const evidence = result.getByRole('region', { name: 'Evidence' });
        assert.match(
          await evidence.getByRole('row', { name: /^Mail server replied/ }).innerText(),
          /\b[45]\d\d\b/,
        );
        assert.equal(await evidence.getByRole('row', { name: /^Reply that decided/ }).count(), 0);
      }
      const confirmed = await verify(page, `alice@${WORLD_DOMAINS['accept-known']}`);
      await confirmed.getByText('Valid', { exact: true }).waitFor();
      assert.equal(await checkValue(confirmed, 'Mailbox exists'), 'Yes');
      assert.equal(await checkValue(confirmed, 'Domain exists'), 'Yes');
      assert.equal(await confirmed.getByText('Not confirmed', { exact: true }).count(), 0);
    });

    it('says on a list’s card which rows wait for a re-check and when, until the list completes', async () => {
      const greylist = WORLD_DOMAINS.greylist;
      const accept = WORLD_DOMAINS['accept-known'];
      // 6 greylisted addresses in 7 rows (one repeated), and 4 that are answered at once.
      const addresses = [
        ...[2, 3, 4, 5, 6, 7].map((n) => `user${n}@${greylist}`),
        `user2@${greylist}`,
        ...[1, 2, 3, 4].map((n) => `user${n}@${accept}`),
      ];
      await navigate(page, 'Lists');
      await page.getByLabel('List name (optional)').fill('Greylisted leads');
      await page.getByLabel('Or paste addresses, one per line').fill(addresses.join('\n'));
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByText('Uploaded “Greylisted leads”: 11 rows to verify.').waitFor();
      const card = page.getByRole('article', { name: 'Greylisted leads' });
      const note = card.getByText(/rows wait for a re-check/);
      await note.waitFor();
      assert.match(
        await note.innerText(),
        /^7 rows wait for a re-check (at .+|now): greylisting servers ask senders to retry later/,
      );

      // The API says the same: rows (not addresses) waiting, and when.
      const href = await card.getByRole('link', { name: 'Greylisted leads' }).getAttribute('href');
      const listId = decodeURIComponent(href?.replace(/^\/lists\//, '') ?? '');
      const session = await sessionFromCookie(
        server.url,
        'owner@example.com',
        await browserSessionCookie(context),
      );
      const waiting = (await (await sessionFetch(server.url, session, `/lists/${listId}`)).json()) as {
        state: string;
        counts: { total: number; processed: number };
        rechecks: { pending: number; next_at: string } | null;
      };
      assert.equal(waiting.state, 'running');
      assert.equal(waiting.rechecks?.pending, 7, JSON.stringify(waiting));
      assert.equal(waiting.counts.processed, 4);
      const dueIn = Date.parse(waiting.rechecks?.next_at ?? '') - Date.now();
      assert.ok(
        dueIn > 0 && dueIn <= 15_000,
        `next_at ${waiting.rechecks?.next_at} within the re-check delay`,
      );

      // The re-check confirms them (the host accepts a retry), and the note goes with the wait.
      await card.getByText('Completed', { exact: true }).waitFor({ timeout: 60_000 });
      assert.equal(await note.count(), 0);
      const done = (await (await sessionFetch(server.url, session, `/lists/${listId}`)).json()) as {
        rechecks: unknown;
        counts: { valid: number };
      };
      assert.equal(done.rechecks, null);
      assert.equal(done.counts.valid, 11, 'the greylisted rows confirmed on their re-check');
      await waitUntil(
        async () => (await card.getByText('11 of 11 rows verified (100%)').count()) > 0,
        'the figures',
      );
    });
  });
}
