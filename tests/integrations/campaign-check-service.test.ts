/**
 * The pre-campaign check's bounds, on a platform session held in memory: at most
 * `maxVerifications` verified, verification stopped once its time is up (a clock moved by each
 * verification), a result our own resolver spoiled neither counted nor written, and write-back that
 * the platform refuses in part or has not finished in time said so in `message`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CampaignCheckLimits, CampaignCheckService } from '../../src/integrations/campaign-check.ts';
import type { Campaign, Recipient } from '../../src/integrations/campaign-ports.ts';
import type {
  Integration,
  MemberResult,
  ProviderSession,
  WriteOutcome,
} from '../../src/integrations/ports.ts';

const CAMPAIGN: Campaign = {
  id: 'c1',
  title: 'Bounded',
  state: 'save',
  draft: true,
  audienceId: 'a1',
  segment: null,
};

/** A session whose campaign goes to `emails` (none verified before); records what is written. */
function platform(emails: string[], outcome: () => WriteOutcome | null) {
  const written: MemberResult[] = [];
  const recipients: Recipient[] = emails.map((email) => ({ id: email, email, status: null }));
  const session = {
    campaign: async () => CAMPAIGN,
    async *campaignRecipients() {
      yield recipients;
    },
    prepareWriteBack: async () => undefined,
    writeMember: async (_audience: string, result: MemberResult) => {
      written.push(result);
    },
    submitWrites: async (_audience: string, results: readonly MemberResult[]) => {
      written.push(...results);
      return 'job-1';
    },
    writeOutcome: async () => outcome(),
  } as unknown as ProviderSession;
  return { session, written };
}

function service(
  session: ProviderSession,
  verify: (email: string) => { status: 'VALID' | 'INVALID'; score: number; ourFailure?: boolean } | null,
  limits: Partial<CampaignCheckLimits>,
  now: () => Date = () => new Date(),
) {
  const integration = { id: 'int_1', accountId: 'acc_1', state: 'connected' } as Integration;
  return new CampaignCheckService({
    integrations: {
      get: async () => integration,
      withSession: (_integration, work) => work(session),
    },
    verify: async (_account, email) => verify(email),
    limits: { concurrency: 1, writePollMs: 1, ...limits },
    now,
    sleep: async () => undefined,
  });
}

const request = { campaignId: 'c1', verifyUnverified: true, exclude: null } as const;
const emails = (n: number) => Array.from({ length: n }, (_, i) => `r${i}@example.com`);

test('at most maxVerifications are verified; the rest stay unverified and the answer says so', async () => {
  const { session, written } = platform(emails(4), () => ({ written: 2, errors: [] }));
  const check = await service(session, () => ({ status: 'VALID', score: 95 }), { maxVerifications: 2 }).check(
    'acc_1',
    'int_1',
    request,
  );
  assert.equal(check?.verified, 2);
  assert.deepEqual(check?.byCategory, { valid: 2, risky: 0, invalid: 0, unverified: 2 });
  assert.match(check?.message ?? '', /At most 2 recipients are verified per check: 2 more/);
  assert.equal(written.length, 2);
});

test('verification stops taking addresses once its time is up', async () => {
  let ms = 0;
  const { session } = platform(emails(5), () => ({ written: 2, errors: [] }));
  const verify = () => {
    ms += 10_000;
    return { status: 'INVALID', score: 5 } as const;
  };
  const check = await service(session, verify, { verifyBudgetMs: 15_000 }, () => new Date(ms)).check(
    'acc_1',
    'int_1',
    request,
  );
  assert.equal(check?.verified, 2);
  assert.deepEqual(check?.byCategory, { valid: 0, risky: 0, invalid: 2, unverified: 3 });
  assert.match(check?.message ?? '', /Verification stopped after 15 s: 3 recipients were left unverified/);
});

test('a result our own resolver spoiled is neither counted nor written back', async () => {
  const { session, written } = platform(emails(2), () => null);
  const verify = (email: string) =>
    email === 'r0@example.com'
      ? { status: 'INVALID' as const, score: 0, ourFailure: true }
      : { status: 'VALID' as const, score: 95 };
  const check = await service(session, verify, {}).check('acc_1', 'int_1', request);
  assert.deepEqual(check?.byCategory, { valid: 1, risky: 0, invalid: 0, unverified: 1 });
  assert.deepEqual(
    written.map((result) => result.memberId),
    ['r1@example.com'],
  );
  assert.match(check?.message ?? '', /1 recipient could not be verified \(our DNS resolver failed/);
});

test('write-back refused in part, or unfinished in time, is said in the message', async () => {
  const refused = platform(emails(6), () => ({ written: 5, errors: [{ memberId: 'r0', message: '404' }] }));
  const partly = await service(refused.session, () => ({ status: 'VALID', score: 95 }), {}).check(
    'acc_1',
    'int_1',
    request,
  );
  assert.match(partly?.message ?? '', /1 result could not be written back/);
  const slow = platform(emails(6), () => null);
  const unfinished = await service(slow.session, () => ({ status: 'VALID', score: 95 }), {
    writeWaitMs: 0,
  }).check('acc_1', 'int_1', request);
  assert.match(unfinished?.message ?? '', /still writing the results back/);
  assert.equal(unfinished?.verified, 6);
});
