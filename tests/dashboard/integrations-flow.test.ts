/**
 * The Integrations page in Chromium, against a real `mailvet serve` on the mail world and the
 * Mailchimp emulator: connect an account, validate an audience with write-back and follow the run's
 * progress live to its end (its counts the audience's, the members' fields and tags written in
 * Mailchimp, its results a list), see a dry run change nothing, see a second run of an audience
 * refused while one goes and cancel that one, create a schedule (a bad cron expression refused
 * beside its field), see its next run, change, pause, resume and delete it, then pick a draft
 * campaign, check it, find the check again after a reload, and leave its invalid recipients out
 * once that is confirmed. Steps run in order and share one signed-in page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type {
  EmulatedAccount,
  EmulatedAudience,
  EmulatedCampaign,
  MailchimpEmulator,
} from '../mailchimp/emulator.ts';
import {
  type ApiSession,
  browserSessionCookie,
  type DashboardServer,
  GATE_DOMAIN,
  heading,
  launchChromium,
  navigate,
  newContext,
  type PageGlobals,
  requireDashboard,
  SECOND_GATE_DOMAIN,
  sessionFetch,
  sessionFromCookie,
  signUpInBrowser,
  startDashboardServer,
  waitUntil,
} from './harness.ts';

const dashboard = requireDashboard('dashboard integrations-flow suite');

/**
 * The Newsletter audience's subscribed members and the category the mail world gives each:
 * accept.test knows user1..user100 and refuses other mailboxes, catchall.test takes anything,
 * the no-such-domain ones do not exist, and the gate holds its member until the test opens it.
 */
const NEWSLETTER: ReadonlyArray<[email: string, category: 'valid' | 'risky' | 'invalid']> = [
  ['user1@accept.test', 'valid'],
  ['user2@accept.test', 'valid'],
  ['user3@accept.test', 'valid'],
  ['user4@accept.test', 'valid'],
  ['ghost1@accept.test', 'invalid'],
  ['ghost2@accept.test', 'invalid'],
  ['someone1@catchall.test', 'risky'],
  ['x1@no-such-domain-1.test', 'invalid'],
  [`user1@${GATE_DOMAIN}`, 'valid'],
];
const TAGS = { valid: 'mailvet-valid', risky: 'mailvet-risky', invalid: 'mailvet-invalid' } as const;
const count = (category: string) => NEWSLETTER.filter(([, each]) => each === category).length;

interface RunBody {
  id: string;
  state: string;
  list_id: string | null;
  write_back: unknown;
  counts: Record<string, number>;
}

interface ScheduleBody {
  id: string;
  cron: string;
  timezone: string;
  paused: boolean;
  next_run_at: string | null;
}

const isFocused = (locator: Locator) =>
  locator.evaluate((each) => each === (globalThis as unknown as PageGlobals).document.activeElement);

/** The run's counts as the page lists them, term by term. */
async function countsOf(run: Locator): Promise<Record<string, string>> {
  const terms = await run.getByRole('term').allTextContents();
  const values = await run.getByRole('definition').allTextContents();
  return Object.fromEntries(terms.map((term, index) => [term, values[index] ?? '']));
}

if (dashboard.executablePath === null) {
  test('dashboard integrations flow', (t) => t.skip(dashboard.skipReason));
} else {
  const executablePath = dashboard.executablePath;
  describe('dashboard integrations flow', () => {
    let server: DashboardServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let mailchimp: MailchimpEmulator;
    let shop: EmulatedAccount;
    let newsletter: EmulatedAudience;
    let customers: EmulatedAudience;
    let session: ApiSession;
    let integrationId = '';
    let firstRun: RunBody;

    const card = () => page.getByRole('article', { name: 'Corner Shop' });
    const audienceRow = (name: string) =>
      card()
        .getByRole('region', { name: 'Audiences of Corner Shop' })
        .getByRole('row', { name: new RegExp(`^${name}`) });
    const runs = () => card().getByRole('region', { name: 'Runs', exact: true });
    const newestRun = () => runs().getByRole('article').first();
    const schedules = () => card().getByRole('region', { name: 'Schedules', exact: true });
    const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
      const response = await sessionFetch(server.url, session, path, init);
      const text = await response.text();
      assert.ok(response.ok, `${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
      return JSON.parse(text) as T;
    };
    /** What a run could change in Mailchimp. */
    const mailchimpState = (audience: EmulatedAudience) =>
      JSON.stringify({
        members: mailchimp.members(audience),
        segments: mailchimp.segments(audience),
        fields: mailchimp.mergeFields(audience),
      });

    before(async () => {
      [server, browser] = await Promise.all([
        startDashboardServer({ plans: 'generous', mailchimp: true }),
        launchChromium(executablePath),
      ]);
      assert.ok(server.mailchimp !== null, 'the server talks to the emulator');
      mailchimp = server.mailchimp;
      mailchimp.batchStepMs = 1;
      shop = mailchimp.addAccount({ dc: 'us21', name: 'Corner Shop' });
      newsletter = mailchimp.addAudience(shop, { name: 'Newsletter' });
      for (const [email] of NEWSLETTER) mailchimp.addMember(newsletter, { email });
      mailchimp.addMember(newsletter, { email: 'lapsed@accept.test', status: 'unsubscribed' });
      customers = mailchimp.addAudience(shop, { name: 'Customers' });
      mailchimp.addMember(customers, { email: `user1@${SECOND_GATE_DOMAIN}` });
      context = await newContext(browser);
      // Hang guards for every action and wait below, not timing assertions.
      context.setDefaultTimeout(20_000);
      page = await context.newPage();
    });

    after(async () => {
      // Lets go of the connections the cancelled run's probe may still hold.
      server?.secondGate.open();
      await browser?.close();
      await server?.close();
    });

    it('connects Mailchimp and lists the audiences with their subscribed members, never run', async () => {
      await signUpInBrowser(page, server.url, 'owner@example.com', 'correct horse battery');
      session = await sessionFromCookie(server.url, 'owner@example.com', await browserSessionCookie(context));
      await navigate(page, 'Integrations');
      await page.getByLabel('Mailchimp API key').fill(shop.apiKey);
      await page.getByRole('button', { name: 'Connect Mailchimp' }).click();
      await page.getByText('Connected “Corner Shop” (us21).').waitFor();
      await audienceRow('Newsletter').waitFor();
      const cells = await audienceRow('Newsletter').locator('th, td').allTextContents();
      assert.deepEqual(cells, ['Newsletter', String(NEWSLETTER.length), 'Never', '', 'Validate now']);
      await runs().getByText('No runs yet').waitFor();
      await schedules().getByText('No schedules').waitFor();
      const listed = await api<{ integrations: Array<{ id: string }> }>('/integrations');
      integrationId = listed.integrations[0]!.id;
    });

    it('opens "Validate now" with safe defaults, and says beside the statuses when none is chosen', async () => {
      await audienceRow('Newsletter').getByRole('button', { name: 'Validate now' }).click();
      const form = card().getByRole('region', { name: 'Validate “Newsletter”' });
      await form.waitFor();
      assert.ok(await isFocused(form.getByRole('heading', { name: 'Validate “Newsletter”' })), 'focus on it');
      const box = (name: string) => form.getByRole('checkbox', { name, exact: true });
      assert.equal(await box('Dry run (write nothing to Mailchimp)').isChecked(), false);
      assert.equal(await box('Subscribed').isChecked(), true);
      assert.equal(await box('Unsubscribed').isChecked(), false);
      assert.equal(await box('Fields (MV_STATUS, MV_SCORE, MV_CHECKED)').isChecked(), true);
      assert.equal(await box('Tags (mailvet-valid, mailvet-risky, mailvet-invalid)').isChecked(), true);
      assert.equal(await box('Segments by score').isChecked(), true);
      assert.equal(await box('Unsubscribe invalid contacts').isChecked(), false, 'off unless asked');
      await form.getByText(/Invalid contacts become unsubscribed in Mailchimp/).waitFor();
      assert.equal(await form.getByRole('radio', { name: 'All members' }).isChecked(), true);
      assert.ok(await form.getByLabel('Days since the last verification').isDisabled(), 'only for stale');

      await box('Subscribed').uncheck();
      await form.getByRole('button', { name: 'Start validation' }).click();
      await form.getByText('Choose at least one status.').waitFor();
      assert.equal(await box('Subscribed').getAttribute('aria-invalid'), 'true');
      assert.ok(await isFocused(box('Subscribed')), 'the field at fault has the focus');
      await box('Subscribed').check();
    });

    it('validates the audience with write-back and follows its progress live to the end', async () => {
      const form = card().getByRole('region', { name: 'Validate “Newsletter”' });
      await form.getByRole('button', { name: 'Start validation' }).click();
      await card().getByText('Validation of “Newsletter” started.').waitFor();
      assert.equal(await form.count(), 0, 'the form is closed');
      assert.ok(await isFocused(runs().getByRole('heading', { name: 'Runs' })), 'focus on the runs');

      // The gated member holds the run part-way: the bar must show it there.
      const bar = newestRun().getByRole('progressbar', { name: 'Run of Newsletter' });
      await bar.waitFor();
      assert.equal(await bar.getAttribute('aria-valuemin'), '0');
      assert.equal(await bar.getAttribute('aria-valuemax'), '100');
      // Every member but the gated one verified.
      const held = Math.round(((NEWSLETTER.length - 1) / NEWSLETTER.length) * 100);
      await waitUntil(
        async () => Number(await bar.getAttribute('aria-valuenow')) === held,
        `the run’s bar to stop at ${held}`,
      );
      await newestRun().getByText('Verifying', { exact: true }).waitFor();
      assert.equal(
        await bar.getAttribute('aria-valuetext'),
        `Verifying: ${NEWSLETTER.length - 1} of ${NEWSLETTER.length} members verified`,
      );
      await newestRun().getByRole('button', { name: 'Cancel' }).waitFor();
      await audienceRow('Newsletter')
        .getByText(/^Verifying, /)
        .waitFor();
      server.gate.open();

      try {
        await newestRun().getByText('Completed', { exact: true }).waitFor();
      } catch (error) {
        const listed = await api<{ runs: RunBody[] }>(`/integrations/${integrationId}/runs`);
        throw new Error(
          `the run did not complete: ${JSON.stringify(listed.runs[0])}\ngate: ${server.gate.state()}\nserver warnings: ${server.problems()}`,
          { cause: error },
        );
      }
      assert.equal(await bar.count(), 0, 'no progress bar once the run is completed');
      assert.equal(await newestRun().getByRole('button', { name: 'Cancel' }).count(), 0, 'nothing to cancel');
      const listed = await api<{ runs: RunBody[] }>(`/integrations/${integrationId}/runs`);
      firstRun = listed.runs[0]!;
      assert.equal(firstRun.state, 'completed');
      const members = String(NEWSLETTER.length);
      assert.deepEqual(await countsOf(newestRun()), {
        Members: members,
        Verified: members,
        Valid: String(count('valid')),
        Risky: String(count('risky')),
        Invalid: String(count('invalid')),
        'Written back': members,
        'Not written': '0',
      });
      assert.deepEqual(firstRun.counts, {
        members: NEWSLETTER.length,
        verified: NEWSLETTER.length,
        written: NEWSLETTER.length,
        write_errors: 0,
        valid: count('valid'),
        risky: count('risky'),
        invalid: count('invalid'),
      });
      await newestRun().getByText('Started by hand.', { exact: false }).waitFor();
      await audienceRow('Newsletter')
        .getByText(/^Completed, /)
        .waitFor();
    });

    it('wrote each subscribed member’s status and tag to Mailchimp, and left the unsubscribed one alone', async () => {
      await mailchimp.idle();
      for (const [email, category] of NEWSLETTER) {
        const member = mailchimp.member(newsletter, email);
        assert.ok(member !== undefined, email);
        assert.equal(typeof member.mergeFields.MV_STATUS, 'string', `${email} has MV_STATUS`);
        assert.equal(member.status, 'subscribed', `${email} stays subscribed`);
        const ours = member.tags.filter((tag) => tag.startsWith('mailvet-'));
        assert.deepEqual(ours, [TAGS[category]], `${email}: ${JSON.stringify(member)}`);
      }
      assert.equal(mailchimp.member(newsletter, 'user1@accept.test')?.mergeFields.MV_STATUS, 'VALID');
      const lapsed = mailchimp.member(newsletter, 'lapsed@accept.test')!;
      assert.equal(lapsed.mergeFields.MV_STATUS ?? '', '', 'not read, not written');
      assert.deepEqual(lapsed.tags, []);
      assert.deepEqual(mailchimp.destructiveCalls(shop), [], 'nothing deleted');
    });

    it('links the run to its results, a list with downloads', async () => {
      const link = newestRun().getByRole('link', { name: 'Results' });
      assert.equal(await link.getAttribute('href'), `/lists/${firstRun.list_id}`);
      await link.click();
      await page.getByRole('link', { name: 'Back to every list' }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/lists/${firstRun.list_id}`);
      await page.getByRole('link', { name: 'Download CSV' }).waitFor();
      await navigate(page, 'Integrations');
      await newestRun().getByText('Completed', { exact: true }).waitFor();
    });

    it('makes a dry run that verifies and counts but changes nothing in Mailchimp', async () => {
      const before = mailchimpState(newsletter);
      await audienceRow('Newsletter').getByRole('button', { name: 'Validate now' }).click();
      const form = card().getByRole('region', { name: 'Validate “Newsletter”' });
      await form.getByRole('checkbox', { name: 'Dry run (write nothing to Mailchimp)' }).check();
      assert.ok(
        await form.getByRole('checkbox', { name: 'Segments by score' }).isDisabled(),
        'nothing to write back in a dry run',
      );
      await form.getByRole('button', { name: 'Start validation' }).click();
      await card()
        .getByText('Dry run of “Newsletter” started: nothing will be written to Mailchimp.')
        .waitFor();
      const run = newestRun();
      await run.getByText('Dry run: nothing written to Mailchimp.', { exact: false }).waitFor();
      await run.getByText('Completed', { exact: true }).waitFor();
      const counts = await countsOf(run);
      assert.equal(counts.Verified, String(NEWSLETTER.length));
      assert.equal(counts.Invalid, String(count('invalid')));
      assert.equal(counts['Written back'], undefined, 'nothing to count as written');
      assert.equal(await runs().getByRole('article').count(), 2, 'both runs are listed');
      const latest = (await api<{ runs: RunBody[] }>(`/integrations/${integrationId}/runs`)).runs[0]!;
      assert.equal(latest.write_back, null);
      assert.equal(latest.counts.written, 0);
      await mailchimp.idle();
      assert.equal(mailchimpState(newsletter), before, 'Mailchimp is as it was');
    });

    it('refuses a second run of an audience while one goes, with the API’s message, and cancels it', async () => {
      // The second gate holds this run's only member.
      await audienceRow('Customers').getByRole('button', { name: 'Validate now' }).click();
      let form = card().getByRole('region', { name: 'Validate “Customers”' });
      await form.getByRole('button', { name: 'Start validation' }).click();
      await card().getByText('Validation of “Customers” started.').waitFor();
      const going = runs().getByRole('article', { name: /^Customers,/ });
      await going.getByRole('progressbar', { name: 'Run of Customers' }).waitFor();

      await audienceRow('Customers').getByRole('button', { name: 'Validate now' }).click();
      form = card().getByRole('region', { name: 'Validate “Customers”' });
      await form.getByRole('button', { name: 'Start validation' }).click();
      const refusal = form.getByRole('alert');
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? '', /has a run going/);
      await form.getByRole('button', { name: 'Close' }).click();
      assert.equal(
        await runs()
          .getByRole('article', { name: /^Customers,/ })
          .count(),
        1,
        'no second run',
      );

      await going.getByRole('button', { name: 'Cancel' }).click();
      await going.getByText('Cancelled', { exact: true }).waitFor();
      assert.equal(await going.getByRole('progressbar').count(), 0);
      await going.getByText('Cancelled by its owner.').waitFor();
      const listed = await api<{ runs: RunBody[] }>(`/integrations/${integrationId}/runs`);
      assert.equal(listed.runs[0]?.state, 'cancelled');
    });

    it('creates a schedule, saying beside the field when the cron expression is refused', async () => {
      await schedules().getByRole('button', { name: 'New schedule' }).click();
      const form = schedules().getByRole('region', { name: 'New schedule' });
      await form.waitFor();
      assert.equal(await form.getByLabel('Audience').inputValue(), newsletter.id, 'the first audience');
      assert.equal(await form.getByLabel('Time zone').inputValue(), 'UTC', 'the browser’s zone');
      const cron = form.getByLabel('Cron expression');
      assert.equal(await cron.inputValue(), '0 3 * * 1');
      assert.equal(
        await form.getByLabel('Common schedules').inputValue(),
        '0 3 * * 1',
        'the preset of the expression is shown',
      );

      await cron.fill('every monday');
      await form.getByRole('button', { name: 'Create schedule' }).click();
      const message = form.getByText(/five fields/);
      await message.waitFor();
      assert.equal(await cron.getAttribute('aria-invalid'), 'true');
      const describedBy = (await cron.getAttribute('aria-describedby'))?.split(' ') ?? [];
      assert.ok(describedBy.includes((await message.getAttribute('id')) ?? '-'), 'the message describes it');
      assert.equal(await form.getByLabel('Common schedules').inputValue(), '', 'no preset matches');

      await form.getByLabel('Common schedules').selectOption({ label: 'Every Monday 03:00' });
      assert.equal(await cron.inputValue(), '0 3 * * 1');
      await form.getByLabel('Time zone').selectOption('Europe/Paris');
      await form.getByRole('button', { name: 'Create schedule' }).click();
      const row = schedules().getByRole('row', { name: /^Newsletter/ });
      await row.waitFor();
      assert.equal(await form.count(), 0, 'the form is closed');

      const [schedule] = (
        await api<{ schedules: ScheduleBody[] }>(`/integrations/${integrationId}/schedules`)
      ).schedules;
      assert.ok(schedule !== undefined && schedule.next_run_at !== null, JSON.stringify(schedule));
      assert.equal(schedule.cron, '0 3 * * 1');
      assert.equal(schedule.timezone, 'Europe/Paris');
      // Monday 03:00 in Paris, whatever the season.
      const paris = new Intl.DateTimeFormat('en-US', {
        timeZone: 'Europe/Paris',
        weekday: 'long',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(schedule.next_run_at));
      assert.equal(paris, 'Monday 03:00');
      const shown = await page.evaluate(
        (iso) =>
          new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
            new Date(iso),
          ),
        schedule.next_run_at,
      );
      const cells = await row.locator('th, td').allTextContents();
      assert.equal(cells[0], 'Newsletter');
      assert.match(cells[1] ?? '', /Every Monday 03:00.*0 3 \* \* 1.*Europe\/Paris/);
      assert.equal(cells[2], shown, 'the next run, in the browser’s time');
      assert.equal(cells[3], 'Never');
      assert.equal(cells[4], 'Active');
    });

    it('changes the schedule, pauses and resumes it', async () => {
      const row = schedules().getByRole('row', { name: /^Newsletter/ });
      await row.getByRole('button', { name: 'Edit' }).click();
      const form = schedules().getByRole('region', { name: 'Edit the schedule of “Newsletter”' });
      await form.getByLabel('Common schedules').selectOption({ label: 'Every day 03:00' });
      assert.equal(await form.getByLabel('Time zone').inputValue(), 'Europe/Paris', 'its own zone kept');
      await form.getByRole('button', { name: 'Save schedule' }).click();
      await row.getByText('Every day 03:00').waitFor();
      assert.ok(
        await isFocused(schedules().getByRole('button', { name: 'New schedule' })),
        'the focus goes back once the form closes',
      );

      await row.getByRole('button', { name: 'Pause' }).click();
      await row.getByText('Paused', { exact: true }).waitFor();
      await row.getByText('None while paused').waitFor();
      let [schedule] = (await api<{ schedules: ScheduleBody[] }>(`/integrations/${integrationId}/schedules`))
        .schedules;
      assert.equal(schedule?.paused, true);
      assert.equal(schedule?.next_run_at, null);
      assert.equal(schedule?.cron, '0 3 * * *');

      await row.getByRole('button', { name: 'Resume' }).click();
      await row.getByText('Active', { exact: true }).waitFor();
      [schedule] = (
        await api<{ schedules: ScheduleBody[] }>(`/integrations/${integrationId}/schedules`)
      ).schedules;
      assert.equal(schedule?.paused, false);
      assert.ok(schedule?.next_run_at !== null, 'a next run again');
    });

    it('deletes the schedule only once confirmed', async () => {
      const row = schedules().getByRole('row', { name: /^Newsletter/ });
      await row.getByRole('button', { name: 'Delete' }).click();
      await row.getByRole('button', { name: 'No, keep it' }).click();
      await row.getByRole('button', { name: 'Delete' }).waitFor();
      const kept = await api<{ schedules: ScheduleBody[] }>(`/integrations/${integrationId}/schedules`);
      assert.equal(kept.schedules.length, 1, 'kept');

      await row.getByRole('button', { name: 'Delete' }).click();
      await row.getByRole('button', { name: 'Yes, delete' }).click();
      await schedules().getByText('No schedules').waitFor();
      const left = await api<{ schedules: ScheduleBody[] }>(`/integrations/${integrationId}/schedules`);
      assert.deepEqual(left.schedules, []);
    });

    describe('pre-campaign check', () => {
      let campaign: EmulatedCampaign;
      let single: EmulatedCampaign;
      const check = () => card().getByRole('region', { name: 'Pre-campaign check' });
      const result = (title = 'Spring sale') => check().getByRole('region', { name: `Campaign “${title}”` });
      const picker = () => check().getByRole('combobox', { name: 'Draft campaign' });

      before(() => {
        // A subscriber who joined after the runs: never verified.
        mailchimp.addMember(newsletter, { email: 'user7@accept.test' });
        campaign = mailchimp.addCampaign(shop, { audience: newsletter, title: 'Spring sale' });
        mailchimp.addCampaign(shop, { audience: newsletter, title: 'Last week', status: 'sent' });
        // Two recipients, one of them invalid: the counts that read "1 member", "1 recipient".
        const pair = mailchimp.addAudience(shop, { name: 'Pair' });
        mailchimp.addMember(pair, { email: 'user8@accept.test' });
        mailchimp.addMember(pair, { email: 'ghost8@accept.test' });
        single = mailchimp.addCampaign(shop, { audience: pair, title: 'Just one' });
      });

      it('offers the drafts to pick from, none typed: a sent campaign is not one', async () => {
        // The drafts were made after the page read them: it looks again when asked.
        await check()
          .getByRole('button', { name: /^Look (again|for new drafts)$/ })
          .click();
        await picker().waitFor();
        const options = await picker().getByRole('option').allTextContents();
        assert.deepEqual(options.sort(), [
          'Just one: to Pair, 2 recipients',
          `Spring sale: to Newsletter, ${NEWSLETTER.length + 1} recipients`,
        ]);
        assert.equal(await check().getByRole('textbox').count(), 0, 'no campaign ID to type');
      });

      it('counts a draft campaign’s recipients by category, verifying the unverified one, and changes no recipients', async () => {
        assert.equal(
          await check().getByRole('checkbox', { name: 'Verify unverified recipients' }).isChecked(),
          true,
        );
        await picker().selectOption(campaign.id);
        await check().getByRole('button', { name: 'Check campaign' }).click();
        await result().waitFor();
        const recipients = NEWSLETTER.length + 1;
        await result().getByText(`${recipients} recipients; 1 of them verified by this check.`).waitFor();
        const table = result().getByRole('table', { name: 'Recipients by category' });
        const byCategory: Record<string, string> = {};
        for (const row of await table.getByRole('row').all()) {
          const [name, value] = await row.locator('th, td').allTextContents();
          byCategory[name ?? ''] = value ?? '';
        }
        assert.deepEqual(byCategory, {
          Category: 'Recipients',
          Valid: String(count('valid') + 1),
          Risky: String(count('risky')),
          Invalid: String(count('invalid')),
          'Not verified': '0',
        });
        await mailchimp.idle();
        assert.equal(mailchimp.member(newsletter, 'user7@accept.test')?.mergeFields.MV_STATUS, 'VALID');
        assert.equal(mailchimp.campaign(campaign).savedSegmentId, undefined, 'the campaign is untouched');
      });

      it('shows the last check again after a reload', async () => {
        await page.reload();
        await heading(page, 'Integrations').waitFor();
        await result()
          .getByText(`${NEWSLETTER.length + 1} recipients; 1 of them verified by this check.`)
          .waitFor();
        await result()
          .getByText(/^Checked /)
          .waitFor();
        const invalid = result().getByRole('row', { name: /^Invalid/ });
        assert.equal(await invalid.locator('td').textContent(), String(count('invalid')));
      });

      it('asks before leaving the invalid recipients out, and changes nothing when told no', async () => {
        await result().getByRole('button', { name: 'Exclude invalid from this campaign' }).click();
        await result()
          .getByText(
            `Leave ${count('invalid')} invalid recipients out of “Spring sale”? The campaign will go to a segment without them; no contact is removed from Mailchimp.`,
          )
          .waitFor();
        await result().getByRole('button', { name: 'No, keep it' }).click();
        await result().getByRole('button', { name: 'Exclude invalid from this campaign' }).waitFor();
        assert.equal(mailchimp.campaign(campaign).savedSegmentId, undefined, 'the campaign is untouched');
        assert.equal(
          mailchimp.segments(newsletter).some((each) => each.name.startsWith('Mailvet: Spring sale')),
          false,
        );
      });

      it('leaves the invalid recipients out once confirmed: the campaign goes to the new segment', async () => {
        await result().getByRole('button', { name: 'Exclude invalid from this campaign' }).click();
        await result().getByRole('button', { name: 'Yes, leave them out' }).click();
        const status = result().getByRole('status');
        await status.getByText(/now goes to the segment/).waitFor();
        const segmentName = 'Mailvet: Spring sale without invalid';
        const kept = NEWSLETTER.length + 1 - count('invalid');
        assert.equal(
          await status.textContent(),
          `The campaign now goes to the segment “${segmentName}”: ${kept} members, ${count('invalid')} recipients left out.`,
        );
        assert.equal(
          await result()
            .getByRole('button', { name: /^Exclude/ })
            .count(),
          0,
          'done',
        );

        const segment = mailchimp.segments(newsletter).find((each) => each.name === segmentName);
        assert.ok(segment !== undefined, JSON.stringify(mailchimp.segments(newsletter)));
        assert.equal(mailchimp.campaign(campaign).savedSegmentId, segment.id, 'the campaign targets it');
        const invalid = NEWSLETTER.filter(([, category]) => category === 'invalid').map(([email]) => email);
        assert.equal(segment.memberEmails.length, kept);
        for (const email of invalid) assert.ok(!segment.memberEmails.includes(email), `${email} left out`);
        assert.ok(segment.memberEmails.includes('user7@accept.test'));
      });

      it('words one of a kind in the singular: 1 member, 1 recipient, 1 invalid recipient', async () => {
        await picker().selectOption(single.id);
        await check().getByRole('button', { name: 'Check campaign' }).click();
        await result('Just one').getByText('2 recipients; 2 of them verified by this check.').waitFor();
        await result('Just one').getByRole('button', { name: 'Exclude invalid from this campaign' }).click();
        await result('Just one')
          .getByText(/^Leave 1 invalid recipient out of “Just one”\?/)
          .waitFor();
        await result('Just one').getByRole('button', { name: 'Yes, leave them out' }).click();
        const status = result('Just one').getByRole('status');
        await status.getByText(/now goes to the segment/).waitFor();
        assert.equal(
          await status.textContent(),
          'The campaign now goes to the segment “Mailvet: Just one without invalid”: 1 member, 1 recipient left out.',
        );
      });
    });

    it('still asks before disconnecting', async () => {
      await card().getByRole('button', { name: 'Disconnect' }).click();
      await card().getByRole('button', { name: 'Yes, disconnect' }).waitFor();
      await card().getByRole('button', { name: 'No, keep it' }).click();
      await card().getByRole('button', { name: 'Disconnect' }).waitFor();
      await heading(page, 'Integrations').waitFor();
      assert.equal((await sessionFetch(server.url, session, `/integrations/${integrationId}`)).status, 200);
    });
  });
}
