/**
 * The dashboard's main flow in Chromium, against a real `mailvet serve` on the mail world: sign up,
 * make a key and use it from outside the browser, see the usage move, verify a typo and take the
 * suggestion, upload a CSV list with a webhook and follow it to the end without reloading (the
 * webhook arrives, signed with the secret shown once), download the rows of one status, delete the
 * list, see a bad webhook URL refused, follow a pasted list to its end on the Overview, connect
 * Mailchimp (the emulator) and see its audiences, see it disconnected once Mailchimp refuses the key,
 * disconnect it, revoke the key, sign out. Steps run in order and share one signed-in page.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import type { EmulatedAccount, MailchimpEmulator } from '../mailchimp/emulator.ts';
import {
  browserSessionCookie,
  CORRECTED_ADDRESS,
  createKeyInBrowser,
  type DashboardServer,
  heading,
  keyFetch,
  launchChromium,
  navigate,
  newContext,
  type PageGlobals,
  requireDashboard,
  SECOND_GATE_DOMAIN,
  signUpInBrowser,
  startDashboardServer,
  startWebhookReceiver,
  TYPO_ADDRESS,
  type WebhookReceiver,
  waitUntil,
  worldListCsv,
} from './harness.ts';

const dashboard = requireDashboard('dashboard main-flow suite');

interface ListBody {
  id: string;
  state: string;
  webhook_url: string | null;
  counts: Record<string, number>;
}

const WEBHOOK_SECRET = /^whsec_[0-9a-f]{64}$/;

interface IntegrationBody {
  id: string;
  account_name: string;
  state: string;
  message: string | null;
}

/**
 * The list's completion webhook, once the receiver has it: checks its event, its list and its
 * signature by `secret` (the one the dashboard showed).
 */
async function completionWebhook(receiver: WebhookReceiver, path: string, listId: string, secret: string) {
  const delivery = await waitUntil(
    () => receiver.received.find((each) => each.path === path),
    `the webhook at ${path}`,
  );
  const event = JSON.parse(delivery.body) as { event: string; data: { list: ListBody } };
  assert.equal(event.event, 'list.completed');
  assert.equal(event.data.list.id, listId);
  assert.equal(event.data.list.state, 'completed');
  assert.ok(verifyWebhook(secret, delivery.body, delivery.signature), 'signed with the secret shown');
}

/** Records, in the page, every value each progress bar shows (from before the upload on). */
const RECORD_PROGRESS = `(() => {
  const seen = [];
  window.progressSeen = seen;
  const record = () => {
    for (const bar of document.querySelectorAll('[role="progressbar"]')) {
      const entry = {
        name: bar.getAttribute('aria-label'),
        now: Number(bar.getAttribute('aria-valuenow')),
        min: Number(bar.getAttribute('aria-valuemin')),
        max: Number(bar.getAttribute('aria-valuemax')),
      };
      const last = seen.findLast((each) => each.name === entry.name);
      if (last === undefined || last.now !== entry.now) seen.push(entry);
    }
  };
  new MutationObserver(record).observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['aria-valuenow'],
  });
})()`;

if (dashboard.executablePath === null) {
  test('dashboard main flow', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('dashboard main flow', () => {
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let receiver: WebhookReceiver;
    let apiKey = '';
    let listId = '';
    let listSecret = '';
    const email = 'owner@example.com';
    const password = 'correct horse battery';
    const keyName = 'CRM sync';

    before(async () => {
      [server, browser, receiver] = await Promise.all([
        // The webhook receiver is on loopback, which webhooks may not reach otherwise.
        startDashboardServer({
          plans: 'generous',
          env: { MAILVET_WEBHOOK_ALLOW_PRIVATE: 'true' },
          mailchimp: true,
        }),
        launchChromium(executablePath),
        startWebhookReceiver(),
      ]);
      context = await newContext(browser);
      // Hang guards for every action and wait below, not timing assertions.
      context.setDefaultTimeout(20_000);
      page = await context.newPage();
    });

    after(async () => {
      await browser?.close();
      await server?.close();
      await receiver?.close();
    });

    it('signs up in the dashboard and lands on the Overview with no use yet', async () => {
      await signUpInBrowser(page, server.url, email, password);
      const meter = page.getByRole('meter', { name: 'Verifications this month' });
      assert.equal(await meter.getAttribute('aria-valuenow'), '0');
      assert.equal(await meter.getAttribute('aria-valuemax'), '100000');
      await page.getByText('Verifications: 0 of 100,000 verifications').waitFor();
    });

    it('creates a key, shown once in the read-only "New API key" field', async () => {
      apiKey = await createKeyInBrowser(page, keyName);
      assert.match(apiKey, /^\S{20,}$/, 'the key is one long token');
      assert.equal(await page.getByRole('textbox', { name: 'New API key' }).getAttribute('readonly'), '');
      // The key's row is listed, with its prefix: the start of the key.
      const row = page.getByRole('row', { name: new RegExp(keyName) });
      const prefix = (await row.locator('code').textContent())?.replace('…', '') ?? '';
      assert.ok(prefix.length > 4 && apiKey.startsWith(prefix), `prefix ${prefix} starts ${apiKey}`);
    });

    it('counts the key’s verifications on the Overview', async () => {
      const addresses = ['alice@accept.test', 'bob@accept.test', 'nobody@accept.test'];
      for (const address of addresses) {
        const response = await keyFetch(server.url, apiKey, '/verify', {
          method: 'POST',
          body: JSON.stringify({ email: address }),
        });
        assert.equal(response.status, 200, await response.text());
      }
      await navigate(page, 'Overview');
      const meter = page.getByRole('meter', { name: 'Verifications this month' });
      await waitUntil(async () => (await meter.getAttribute('aria-valuenow')) === '3', 'the meter to read 3');
      await page.getByText('Verifications: 3 of 100,000 verifications').waitFor();
      await page.getByText('99,997 verifications left').waitFor();
    });

    it('verifies a mistyped address and verifies the suggestion on a click', async () => {
      await navigate(page, 'Verify', 'Verify an address');
      await page.getByLabel('Email address').fill(TYPO_ADDRESS);
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await page.getByRole('heading', { name: `Result for ${TYPO_ADDRESS}` }).waitFor();
      const result = page.getByRole('region', { name: /^Result for/ });
      await result.getByText('Invalid domain', { exact: true }).waitFor();

      await result.getByRole('button', { name: CORRECTED_ADDRESS }).click();
      await page.getByRole('heading', { name: `Result for ${CORRECTED_ADDRESS}` }).waitFor();
      assert.equal(await page.getByLabel('Email address').inputValue(), CORRECTED_ADDRESS);
      // gmail.com's MX in the mail world knows alice.
      await result.getByText('Valid', { exact: true }).waitFor();
      assert.equal(await result.getByRole('button', { name: CORRECTED_ADDRESS }).count(), 0);
      // Why: the server asked, on loopback, and the reply that confirmed the mailbox, in words.
      const evidence = result.getByRole('region', { name: 'Evidence' });
      assert.match(
        await evidence.getByRole('row', { name: /^Mail server/ }).innerText(),
        /\(127\.0\.\d+\.\d+\)/,
      );
      assert.match(await evidence.getByRole('row', { name: /^Reply that decided/ }).innerText(), /\b250\b/);
    });

    it('says how likely an address at a catch-all domain is, and what moved it', async () => {
      await page.getByLabel('Email address').fill('mary.jones@catchall.test');
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await page.getByRole('heading', { name: 'Result for mary.jones@catchall.test' }).waitFor();
      const evidence = page.getByRole('region', { name: 'Evidence' });
      const confidence = await evidence.getByRole('row', { name: /^Catch-all confidence/ }).innerText();
      assert.match(confidence, /\d+ \/ 100/);
      const signals = evidence.getByRole('table', { name: 'What moved the catch-all confidence' });
      assert.ok((await signals.getByRole('row').count()) > 1, 'a header and at least one signal');
      assert.match(await signals.innerText(), /raised|lowered/);
    });

    it('uploads a CSV list with a webhook and follows its progress to the end without a page load', async () => {
      await navigate(page, 'Lists');
      let loads = 0;
      page.on('load', () => {
        loads++;
      });
      await page.evaluate(() => {
        (globalThis as unknown as PageGlobals).dashboardMarker = 'no reload';
      });
      await page.evaluate(RECORD_PROGRESS);

      const { csv, rows } = worldListCsv(true);
      await page.getByLabel('CSV file').setInputFiles({
        name: 'contacts.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(csv),
      });
      await page.getByLabel('Webhook URL (optional)').fill(`${receiver.url}/hooks/contacts`);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByText(`Uploaded “contacts”: ${rows} rows to verify.`).waitFor();
      listSecret = await page.getByRole('textbox', { name: 'Webhook signing secret' }).inputValue();
      assert.match(listSecret, WEBHOOK_SECRET);

      const card = page.getByRole('article', { name: 'contacts' });
      const href = await card.getByRole('link', { name: 'contacts' }).getAttribute('href');
      listId = decodeURIComponent(href?.replace(/^\/lists\//, '') ?? '');
      assert.match(listId, /^lst_/);
      const bar = page.getByRole('progressbar', { name: 'contacts' });
      assert.equal(await bar.count(), 1, 'one progress bar for the list');
      assert.equal(await bar.getAttribute('aria-valuemin'), '0');
      assert.equal(await bar.getAttribute('aria-valuemax'), '100');

      // The gated rows hold the list part-way: the bar must show it there, then move on.
      const partWay = await waitUntil(async () => {
        const now = Number(await bar.getAttribute('aria-valuenow'));
        return now > 0 && now < 100 ? now : undefined;
      }, 'the progress bar to show the list part-way');
      server.gate.open();

      try {
        await card.getByText('Completed', { exact: true }).waitFor();
      } catch (error) {
        // Say where the list stands (a recheck pending? rows left?), not just that the wait ran out.
        const list = await (await keyFetch(server.url, apiKey, `/lists/${listId}`)).text();
        throw new Error(
          `the list did not complete: ${list}\ngate: ${server.gate.state()}\nserver warnings: ${server.problems()}`,
          { cause: error },
        );
      }
      await card.getByText(`${rows} of ${rows} rows verified (100%)`).first().waitFor();
      assert.equal(await bar.count(), 0, 'no progress bar once the list is completed');

      const seen = (await page.evaluate(() => (globalThis as unknown as PageGlobals).progressSeen)) as Array<{
        name: string;
        now: number;
        min: number;
        max: number;
      }>;
      const values = seen.filter((entry) => entry.name === 'contacts').map((entry) => entry.now);
      assert.ok(values.includes(partWay), `the bar showed ${partWay}%: ${values.join(', ')}`);
      for (const [index, value] of values.entries()) {
        assert.ok(Number.isInteger(value) && value >= 0 && value <= 100, `value ${value} in 0..100`);
        if (index > 0) assert.ok(value >= values[index - 1]!, `never backwards: ${values.join(', ')}`);
      }
      assert.equal(
        await page.evaluate(() => (globalThis as unknown as PageGlobals).dashboardMarker),
        'no reload',
        'the page was never reloaded',
      );
      assert.equal(loads, 0, 'no page load while the list ran');
      assert.equal(new URL(page.url()).pathname, '/lists');
    });

    it('gave the uploaded file’s list its webhook, which is called once the list completes', async () => {
      const list = (await (await keyFetch(server.url, apiKey, `/lists/${listId}`)).json()) as ListBody;
      assert.equal(list.webhook_url, `${receiver.url}/hooks/contacts`);
      await completionWebhook(receiver, '/hooks/contacts', listId, listSecret);
    });

    it('downloads the Valid rows as CSV, as many as the list counts', async () => {
      const card = page.getByRole('article', { name: 'contacts' });
      await card.getByRole('button', { name: 'Show results' }).click();
      // The charts and the score histogram load on demand and push the boxes below them down:
      // clicking a box before they are in may hit whatever moved under the pointer.
      await card.getByText(/^Scores of \d+ rows$/).waitFor();
      await waitUntil(async () => (await card.getByText(/^Loading/).count()) === 0, 'the results to load');
      const statuses = card.getByRole('group', { name: 'Statuses to download' });
      const labels = await statuses.locator('label').all();
      assert.ok(labels.length >= 8, `a box per status (${labels.length})`);
      for (const label of labels) {
        const box = label.getByRole('checkbox');
        assert.ok(await box.isChecked(), 'every status is kept at first');
        if ((await label.textContent())?.trim() !== 'Valid') await box.uncheck();
      }
      const link = card.getByRole('link', { name: 'Download CSV' });
      assert.match((await link.getAttribute('href')) ?? '', /[?&]status=VALID$/);
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      // The server's Content-Disposition names the file (it wins over the link's `download` name).
      assert.match(download.suggestedFilename(), /\.csv$/);
      const text = await readFile(await download.path(), 'utf8');
      const records = parse(text, { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
      const header = text.split('\n', 1)[0]?.split(',') ?? [];
      assert.deepEqual(header.slice(0, 2), ['name', 'email'], 'the uploaded columns first');
      assert.ok(header.includes('mailvet_status'), `header: ${header.join(',')}`);
      assert.ok(records.length > 0);
      for (const record of records) assert.equal(record.mailvet_status, 'VALID', JSON.stringify(record));

      const response = await keyFetch(server.url, apiKey, `/lists/${listId}`);
      assert.equal(response.status, 200);
      const list = (await response.json()) as ListBody;
      assert.equal(list.state, 'completed');
      assert.equal(records.length, list.counts.valid, 'one row per VALID row of the list');
      // 100 known mailboxes, 10 repeated rows of them and 10 gated ones.
      assert.equal(list.counts.valid, 120);
    });

    it('shows the list’s rows on its page: 25 a page, paged, by status, searched by address', async () => {
      const list = (await (await keyFetch(server.url, apiKey, `/lists/${listId}`)).json()) as ListBody;
      await page.getByRole('article', { name: 'contacts' }).getByRole('link', { name: 'contacts' }).click();
      await heading(page, 'contacts').waitFor();
      const rows = page.getByRole('region', { name: 'Results table' }).getByRole('row');
      const range = page.getByRole('status').filter({ hasText: /^(Rows|No)/ });
      const cells = async (index: number) => rows.nth(index).locator('th, td').allTextContents();
      /** The Status cell of each row shown, once each. */
      const statusesShown = async () => {
        const shown = new Set<string>();
        for (const row of (await rows.all()).slice(1))
          shown.add((await row.locator('td').nth(1).textContent()) ?? '');
        return [...shown];
      };

      await range.getByText(`Rows 1–25 of ${list.counts.total}`).waitFor();
      assert.equal(await rows.count(), 26, 'a header and 25 rows');
      assert.deepEqual((await cells(1)).slice(0, 4), ['1', 'user1@accept.test', 'Valid', '100']);
      const previous = page.getByRole('button', { name: 'Previous' });
      const next = page.getByRole('button', { name: 'Next' });
      assert.ok(await previous.isDisabled(), 'no page before the first');
      await next.click();
      await range.getByText(`Rows 26–50 of ${list.counts.total}`).waitFor();
      assert.equal((await cells(1))[0], '26');
      await previous.click();
      await range.getByText(`Rows 1–25 of ${list.counts.total}`).waitFor();

      await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Invalid' });
      await range.getByText(`Rows 1–25 of ${list.counts.invalid}`).waitFor();
      assert.deepEqual(await statusesShown(), ['Invalid']);
      assert.equal((await cells(1))[1], 'ghost1@accept.test');

      await page.getByLabel('Status', { exact: true }).selectOption({ label: 'All statuses' });
      await page.getByLabel('Search addresses').fill('GHOST1@');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await range.getByText('Rows 1–1 of 1').waitFor();
      assert.deepEqual((await cells(1)).slice(1, 3), ['ghost1@accept.test', 'Invalid']);
      assert.equal(await next.count(), 0, 'one page: no paging');
      await page.getByLabel('Search addresses').fill('%');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await range.getByText('No address contains “%”.').waitFor();
      assert.equal(await rows.count(), 0);
    });

    it('downloads the clean list (Valid and Probably valid rows) in one click', async () => {
      const list = (await (await keyFetch(server.url, apiKey, `/lists/${listId}`)).json()) as ListBody;
      const link = page.getByRole('link', { name: 'Download clean list' });
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const text = await readFile(await download.path(), 'utf8');
      const records = parse(text, { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
      assert.equal(records.length, (list.counts.valid ?? 0) + (list.counts.probably_valid ?? 0));
      assert.deepEqual([...new Set(records.map((record) => record.mailvet_status))].sort(), [
        'PROBABLY_VALID',
        'VALID',
      ]);
      await navigate(page, 'Lists');
    });

    it('deletes the list only once the deletion is confirmed', async () => {
      const card = page.getByRole('article', { name: 'contacts' });
      await card.getByRole('button', { name: 'Delete', exact: true }).click();
      await card.getByRole('button', { name: 'No, keep it' }).click();
      await card.getByRole('button', { name: 'Delete', exact: true }).waitFor();
      assert.equal((await keyFetch(server.url, apiKey, `/lists/${listId}`)).status, 200, 'kept');

      await card.getByRole('button', { name: 'Delete', exact: true }).click();
      await card.getByRole('button', { name: 'Yes, delete' }).click();
      await waitUntil(async () => (await card.count()) === 0, 'the list to leave the page');
      await page.getByText('No lists yet.').waitFor();
      const response = await keyFetch(server.url, apiKey, `/lists/${listId}`);
      assert.equal(response.status, 404);
    });

    it('shows the server’s message beside the webhook field when the URL is refused', async () => {
      const badUrl = 'hooks.example.com/mailvet';
      // What the API says of this URL, asked directly: the form must show that very message.
      const refused = await keyFetch(server.url, apiKey, '/lists', {
        method: 'POST',
        body: JSON.stringify({ emails: ['alice@accept.test'], webhook_url: badUrl }),
      });
      assert.equal(refused.status, 422);
      const problem = (await refused.json()) as { errors: Array<{ field: string; message: string }> };
      const message = problem.errors.find((error) => error.field === 'webhook_url')?.message;
      assert.ok(message !== undefined, JSON.stringify(problem));

      await page.getByLabel('List name (optional)').fill('Overview live');
      await page.getByLabel('Or paste addresses, one per line').fill('alice@accept.test');
      const webhook = page.getByLabel('Webhook URL (optional)');
      await webhook.fill(badUrl);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const shown = page.getByText(message, { exact: true });
      await shown.waitFor();
      assert.equal(await webhook.getAttribute('aria-invalid'), 'true');
      const errorId = (await shown.getAttribute('id')) ?? '';
      const describedBy = (await webhook.getAttribute('aria-describedby'))?.split(' ') ?? [];
      assert.ok(errorId !== '' && describedBy.includes(errorId), 'the message describes the field');
      assert.ok(
        await webhook.evaluate(
          (field) => field === (globalThis as unknown as PageGlobals).document.activeElement,
        ),
        'the field at fault has the focus',
      );
      const lists = (await (await keyFetch(server.url, apiKey, '/lists')).json()) as { lists: ListBody[] };
      assert.deepEqual(lists.lists, [], 'no list was made');
    });

    it('uploads pasted addresses with a webhook and follows the list to its end on the Overview', async () => {
      // Held by the second gate until the list is on the Overview.
      const emails = [1, 2, 3, 4, 5].map((n) => `user${n}@${SECOND_GATE_DOMAIN}`);
      const hookUrl = `${receiver.url}/hooks/pasted`;
      // The name stays from the refused attempt; the addresses are replaced.
      await page
        .getByLabel('Or paste addresses, one per line')
        .fill(['ghost@accept.test', ...emails].join('\n'));
      await page.getByLabel('Webhook URL (optional)').fill(hookUrl);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByText('Uploaded “Overview live”: 6 rows to verify.').waitFor();
      const secret = await page.getByRole('textbox', { name: 'Webhook signing secret' }).inputValue();
      assert.match(secret, WEBHOOK_SECRET);
      assert.notEqual(secret, listSecret, 'each list has its own secret');
      const href = await page
        .getByRole('article', { name: 'Overview live' })
        .getByRole('link', { name: 'Overview live' })
        .getAttribute('href');
      const pastedId = decodeURIComponent(href?.replace(/^\/lists\//, '') ?? '');
      const created = (await (await keyFetch(server.url, apiKey, `/lists/${pastedId}`)).json()) as ListBody;
      assert.equal(created.webhook_url, hookUrl);

      let loads = 0;
      const countLoad = () => {
        loads++;
      };
      page.on('load', countLoad);
      await navigate(page, 'Overview');
      const recent = page.getByRole('region', { name: 'Recent lists' });
      const row = recent
        .getByRole('listitem')
        .filter({ has: page.getByRole('link', { name: 'Overview live' }) });
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /\b(Queued|Running)\b/, 'shown before it ends');
      server.secondGate.open();
      try {
        await row.getByText('Completed', { exact: true }).waitFor();
      } catch (error) {
        const list = await (await keyFetch(server.url, apiKey, `/lists/${pastedId}`)).text();
        throw new Error(
          `the Overview did not show the list completed: ${list}\ngate: ${server.secondGate.state()}\nserver warnings: ${server.problems()}`,
          { cause: error },
        );
      }
      await row.getByText(/6 rows, 100% done/).waitFor();
      page.off('load', countLoad);
      assert.equal(loads, 0, 'no page load while the list ran');
      assert.equal(new URL(page.url()).pathname, '/');
      await completionWebhook(receiver, '/hooks/pasted', pastedId, secret);
    });

    describe('Mailchimp', () => {
      let mailchimp: MailchimpEmulator;
      let shop: EmulatedAccount;
      let integrationId = '';
      const card = () => page.getByRole('article', { name: 'Corner Shop' });

      before(() => {
        assert.ok(server.mailchimp !== null, 'the server talks to the emulator');
        mailchimp = server.mailchimp;
        shop = mailchimp.addAccount({ dc: 'us21', name: 'Corner Shop' });
        const newsletter = mailchimp.addAudience(shop, { name: 'Newsletter' });
        for (let n = 1; n <= 1205; n++) mailchimp.addMember(newsletter, { email: `reader${n}@example.com` });
        const customers = mailchimp.addAudience(shop, { name: 'Customers' });
        for (let n = 1; n <= 3; n++) mailchimp.addMember(customers, { email: `buyer${n}@example.com` });
      });

      it('shows the API’s message beside the key field for a key of the wrong shape', async () => {
        const wrongKey = 'not-a-mailchimp-key';
        // What the API says of this key, asked directly: the form must show that very message.
        const refused = await keyFetch(server.url, apiKey, '/integrations', {
          method: 'POST',
          body: JSON.stringify({ provider: 'mailchimp', api_key: wrongKey }),
        });
        assert.equal(refused.status, 422);
        const problem = (await refused.json()) as { errors: Array<{ field: string; message: string }> };
        const message = problem.errors.find((error) => error.field === 'api_key')?.message;
        assert.ok(message !== undefined, JSON.stringify(problem));

        await navigate(page, 'Integrations');
        await page.getByText('No integrations yet.').waitFor();
        const field = page.getByLabel('Mailchimp API key');
        assert.equal(await field.getAttribute('type'), 'password');
        const hintId = (await page.getByText(/Profile → Extras → API keys/).getAttribute('id')) ?? '';
        assert.ok(hintId !== '', 'the help text has an id');
        // Submitted from the keyboard.
        await field.fill(wrongKey);
        await field.press('Enter');
        const shown = page.getByText(message, { exact: true });
        await shown.waitFor();
        assert.equal(await field.getAttribute('aria-invalid'), 'true');
        const errorId = (await shown.getAttribute('id')) ?? '';
        const describedBy = (await field.getAttribute('aria-describedby'))?.split(' ') ?? [];
        assert.ok(describedBy.includes(hintId), 'the help text describes the field');
        assert.ok(errorId !== '' && describedBy.includes(errorId), 'the message describes the field');
        assert.ok(
          await field.evaluate(
            (each) => each === (globalThis as unknown as PageGlobals).document.activeElement,
          ),
          'the field at fault has the focus',
        );
        const listed = (await (await keyFetch(server.url, apiKey, '/integrations')).json()) as {
          integrations: IntegrationBody[];
        };
        assert.deepEqual(listed.integrations, [], 'nothing was connected');
      });

      it('connects the account with its key and lists its audiences with their member counts', async () => {
        const field = page.getByLabel('Mailchimp API key');
        await field.fill(shop.apiKey);
        await page.getByRole('button', { name: 'Connect Mailchimp' }).click();
        await page.getByText('Connected “Corner Shop” (us21).').waitFor();
        assert.equal(await field.inputValue(), '', 'the key is not left in the field');
        assert.equal(await field.getAttribute('aria-invalid'), null, 'the earlier error is gone');

        await card().getByText('Connected', { exact: true }).waitFor();
        await card().getByText('us21', { exact: true }).waitFor();
        await card()
          .getByRole('row', { name: /Newsletter/ })
          .waitFor();
        const cells = (audience: string) =>
          card()
            .getByRole('row', { name: new RegExp(audience) })
            .locator('th, td')
            .allTextContents();
        assert.deepEqual(await cells('Newsletter'), ['Newsletter', '1,205', 'Never', '', 'Validate now']);
        assert.deepEqual(await cells('Customers'), ['Customers', '3', 'Never', '', 'Validate now']);
        assert.equal(await card().getByRole('row').count(), 3, 'a header row and one row per audience');
        // Runs, schedules and the campaign check are tested in integrations-flow.test.ts. This
        // account has no draft campaign: the check offers to look again rather than a form.
        await card()
          .getByText(/^No draft campaigns in this account/)
          .waitFor();
        assert.deepEqual(await card().getByRole('button').allTextContents(), [
          'Validate now',
          'Validate now',
          'New schedule',
          'Look again',
          'Disconnect',
        ]);
        assert.ok(!(await page.content()).includes(shop.apiKey), 'the key is nowhere on the page');

        const listed = (await (await keyFetch(server.url, apiKey, '/integrations')).json()) as {
          integrations: IntegrationBody[];
        };
        assert.deepEqual(
          listed.integrations.map((each) => [each.account_name, each.state]),
          [['Corner Shop', 'connected']],
        );
        integrationId = listed.integrations[0]!.id;
      });

      it('verifies an audience’s new subscribers once its toggle is on, and stops once it is off', async () => {
        const audienceId = (
          (await (await keyFetch(server.url, apiKey, `/integrations/${integrationId}/audiences`)).json()) as {
            audiences: Array<{ id: string; name: string }>;
          }
        ).audiences.find((each) => each.name === 'Newsletter')?.id;
        assert.ok(audienceId !== undefined, 'the API lists the Newsletter audience');
        const audience = { id: audienceId };
        const toggle = () => card().getByRole('checkbox', { name: 'Verify new subscribers of Newsletter' });
        const other = card().getByRole('checkbox', { name: 'Verify new subscribers of Customers' });
        const settled = async (checked: boolean) => {
          await card()
            .getByRole('checkbox', { name: 'Verify new subscribers of Newsletter', checked, disabled: false })
            .waitFor({ timeout: 10_000 });
          assert.equal(await toggle().isChecked(), checked);
        };
        await card()
          .getByText(/verified as they arrive, and counts against your\s+monthly quota/)
          .waitFor();
        assert.equal(await toggle().isChecked(), false);
        assert.deepEqual(mailchimp.webhooks(audience), [], 'no webhook before');

        await toggle().check();
        // Done once enabled again; a failure would have turned it back off and shown an alert.
        await settled(true);
        assert.equal(await card().getByRole('alert').count(), 0, 'no error');
        await mailchimp.idle();
        assert.equal(mailchimp.webhooks(audience).length, 1, 'Mailchimp has one webhook for the audience');
        assert.equal(await other.isChecked(), false, 'the other audience is not watched');

        await page.reload();
        await heading(page, 'Integrations').waitFor();
        await toggle().waitFor();
        assert.equal(await toggle().isChecked(), true, 'still on after a reload');
        assert.equal(await other.isChecked(), false);

        await toggle().uncheck();
        await settled(false);
        assert.equal(await card().getByRole('alert').count(), 0, 'no error');
        await mailchimp.idle();
        assert.deepEqual(mailchimp.webhooks(audience), [], 'the webhook is removed');
        const watches = (await (
          await keyFetch(server.url, apiKey, `/integrations/${integrationId}/watches`)
        ).json()) as {
          watches: unknown[];
        };
        assert.deepEqual(watches.watches, [], 'no watch left');
      });

      it('shows the integration disconnected, with Mailchimp’s reason, once the key is revoked', async () => {
        mailchimp.revokeKey(shop);
        await page.reload();
        await heading(page, 'Integrations').waitFor();
        await card().getByText('Disconnected', { exact: true }).waitFor();
        const integration = (await (
          await keyFetch(server.url, apiKey, `/integrations/${integrationId}`)
        ).json()) as IntegrationBody;
        assert.equal(integration.state, 'disconnected');
        assert.ok(integration.message !== null);
        const alert = card().getByRole('alert');
        await alert.getByText(integration.message, { exact: true }).waitFor();
        await alert.getByText(/must be connected again/).waitFor();
        assert.equal(await card().getByRole('table').count(), 0, 'no audiences shown');
      });

      it('disconnects only once confirmed, and the integration is gone', async () => {
        await card().getByRole('button', { name: 'Disconnect' }).click();
        await card()
          .getByText(/Its stored API key is erased/)
          .waitFor();
        await card().getByRole('button', { name: 'No, keep it' }).click();
        await card().getByRole('button', { name: 'Disconnect' }).waitFor();
        assert.equal((await keyFetch(server.url, apiKey, `/integrations/${integrationId}`)).status, 200);

        // From the keyboard: the question takes the focus on its "Yes" button.
        await card().getByRole('button', { name: 'Disconnect' }).press('Enter');
        const yes = card().getByRole('button', { name: 'Yes, disconnect' });
        await yes.waitFor();
        assert.ok(
          await yes.evaluate(
            (each) => each === (globalThis as unknown as PageGlobals).document.activeElement,
          ),
          'the confirmation has the focus',
        );
        await page.keyboard.press('Enter');
        await waitUntil(async () => (await card().count()) === 0, 'the integration to leave the page');
        await page.getByText('No integrations yet.').waitFor();
        assert.equal((await keyFetch(server.url, apiKey, `/integrations/${integrationId}`)).status, 404);
      });
    });

    it('revokes the key after a confirmation, and the API refuses it from then on', async () => {
      await navigate(page, 'API keys');
      const row = page.getByRole('row', { name: new RegExp(keyName) });
      await row.getByRole('button', { name: 'Revoke' }).click();
      await row.getByRole('button', { name: 'Yes, revoke' }).click();
      await row.getByText(/^Revoked /).waitFor();
      assert.equal(await row.getByRole('button', { name: 'Revoke' }).count(), 0);

      const response = await keyFetch(server.url, apiKey, '/verify', {
        method: 'POST',
        body: JSON.stringify({ email: 'alice@accept.test' }),
      });
      assert.equal(response.status, 401);
      assert.equal(((await response.json()) as { code: string }).code, 'unauthorized');
    });

    it('signs out, and the session cookie it had no longer works', async () => {
      const cookie = await browserSessionCookie(context);
      const before = await fetch(`${server.url}/api/v1/session`, { headers: { cookie } });
      assert.equal(before.status, 200, 'the cookie works while signed in');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading(page, 'Sign in to Mailvet').waitFor();
      const response = await fetch(`${server.url}/api/v1/session`, { headers: { cookie } });
      assert.equal(response.status, 401);
      assert.equal(((await response.json()) as { code: string }).code, 'unauthorized');
    });
  });
}
