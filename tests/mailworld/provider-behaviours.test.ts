/**
 * The mail world's provider and gateway hosts: that they say on the wire exactly what the reply
 * corpus quotes, and what Mailvet makes of them end to end (real DNS, real SMTP on 127.0.0.x, the
 * verifier wired from configuration as production wires it): the status, reason and score a user
 * sees, and the reply that decided.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createVerifier } from '../../src/container/index.ts';
import type { VerificationResult } from '../../src/verification/report.ts';
import { BEHAVIOUR_DEFAULTS, BEHAVIOURS, type BehaviourName } from './behaviours.ts';
import { type MailWorld, startMailWorld, WORLD_DOMAINS } from './mail-world.ts';
import { PROVIDER_BEHAVIOURS, PROVIDER_REPLIES, type ProviderReplies } from './provider-replies.ts';
import { SmtpTestClient } from './smtp-test-client.ts';

let world: MailWorld;

before(async () => {
  world = await startMailWorld();
});
after(() => world.close());

const [FULL] = BEHAVIOUR_DEFAULTS.providerFullMailboxes;
const [DISABLED] = BEHAVIOUR_DEFAULTS.providerDisabledMailboxes;
const KNOWN = 'alice';
const UNKNOWN = 'nobody-here';

/** A verifier of its own, so no catch-all verdict is remembered from another test. */
async function verify(address: string): Promise<VerificationResult> {
  const verifier = await createVerifier(
    loadConfig({ ...world.env, MAILVET_SMTP_HELO: 'probe.mailvet.test' }),
  );
  return verifier.verify(address);
}

interface Expected {
  status: string;
  reason: string;
  score: number;
  code: number;
  enhanced: string | null;
  /** Words of the deciding reply, as the evidence shows it. */
  message?: RegExp;
  /** What the domain's random-address probe found. */
  probe: 'accepted' | 'rejected' | 'inconclusive';
}

const VALID = {
  status: 'VALID',
  reason: 'mailbox_confirmed',
  score: 100,
  code: 250,
  probe: 'rejected',
} as const;
const REJECTED = { status: 'INVALID', reason: 'mailbox_rejected', score: 5, probe: 'rejected' } as const;
const CATCH_ALL = {
  status: 'PROBABLY_VALID',
  reason: 'catch_all',
  score: 70,
  code: 250,
  probe: 'accepted',
} as const;

const CASES: ReadonlyArray<[BehaviourName, string, Expected]> = [
  [
    'gmail',
    UNKNOWN,
    { ...REJECTED, code: 550, enhanced: '5.1.1', message: /does not exist\..*\?p=NoSuchUser/ },
  ],
  ['gmail', KNOWN, { ...VALID, enhanced: '2.1.5', message: /- gsmtp$/ }],
  [
    'gmail',
    FULL ?? '',
    {
      status: 'PROBABLY_VALID',
      reason: 'mailbox_full',
      score: 40,
      code: 452,
      enhanced: '4.2.2',
      message: /over quota/,
      probe: 'rejected',
    },
  ],
  [
    'gmail',
    DISABLED ?? '',
    {
      status: 'INVALID',
      reason: 'mailbox_disabled',
      score: 5,
      code: 550,
      enhanced: '5.2.1',
      message: /is disabled\..*\?p=DisabledUser/,
      probe: 'rejected',
    },
  ],
  [
    'm365-dbeb',
    UNKNOWN,
    { ...REJECTED, code: 550, enhanced: '5.4.1', message: /Access denied\. AS\(201806281\)/ },
  ],
  ['m365-dbeb', KNOWN, { ...VALID, enhanced: '2.1.5' }],
  ['m365-open', UNKNOWN, { ...CATCH_ALL, enhanced: '2.1.5' }],
  ['m365-open', KNOWN, { ...CATCH_ALL, enhanced: '2.1.5' }],
  ['outlook-com', UNKNOWN, { ...REJECTED, code: 550, enhanced: '5.5.0', message: /mailbox unavailable/ }],
  ['outlook-com', KNOWN, { ...VALID, enhanced: '2.1.5' }],
  [
    'yahoo',
    UNKNOWN,
    { ...REJECTED, code: 554, enhanced: null, message: /doesn't have a yahoo\.com account/ },
  ],
  ['yahoo', KNOWN, { ...VALID, enhanced: '2.1.5' }],
  [
    'yahoo',
    DISABLED ?? '',
    {
      status: 'INVALID',
      reason: 'mailbox_disabled',
      score: 5,
      code: 554,
      enhanced: null,
      message: /This mailbox is disabled/,
      probe: 'rejected',
    },
  ],
  ['icloud', UNKNOWN, { ...REJECTED, code: 550, enhanced: '5.1.1', message: /user does not exist/ }],
  ['icloud', KNOWN, { ...VALID, enhanced: '2.1.5' }],
  ['gateway-accept-all', UNKNOWN, { ...CATCH_ALL, enhanced: '2.1.5', message: /accepted #290/ }],
  ['gateway-accept-all', KNOWN, { ...CATCH_ALL, enhanced: '2.1.5' }],
  ...[UNKNOWN, KNOWN].map((local): [BehaviourName, string, Expected] => [
    'gateway-block',
    local,
    {
      status: 'PROBABLY_VALID',
      reason: 'blocked',
      score: 60,
      code: 550,
      enhanced: '5.7.1',
      message: /blocked using prs\.proofpoint\.com/,
      probe: 'inconclusive',
    },
  ]),
  [
    'policy-reject',
    UNKNOWN,
    {
      status: 'PROBABLY_VALID',
      reason: 'message_refused',
      score: 60,
      code: 552,
      enhanced: '5.3.4',
      message: /Message size exceeds/,
      probe: 'inconclusive',
    },
  ],
  // The random-address probe was refused for the message, so whether the domain takes anything
  // is unknown: confirmed, a little less certain.
  ['policy-reject', KNOWN, { ...VALID, score: 95, enhanced: '2.1.5', probe: 'inconclusive' }],
];

describe('provider hosts through the verifier', () => {
  for (const [behaviour, local, expected] of CASES) {
    const address = `${local}@${WORLD_DOMAINS[behaviour]}`;
    it(`${behaviour}: ${address} → ${expected.status} ${expected.reason}`, async () => {
      const host = world.hosts[behaviour];
      host.reset();
      const result = await verify(address);
      const { evidence } = result;
      assert.deepEqual(
        [result.status, result.reason, result.score],
        [expected.status, expected.reason, expected.score],
        JSON.stringify(evidence.smtp_reply),
      );
      assert.equal(evidence.mx_address, host.host, 'the provider host answered');
      assert.equal(evidence.smtp_reply?.code, expected.code);
      assert.equal(evidence.smtp_reply?.enhanced_code, expected.enhanced);
      if (expected.message) assert.match(evidence.smtp_reply?.message ?? '', expected.message);
      assert.equal(evidence.catch_all_probe.outcome, expected.probe);
      assert.ok(host.stats.rcptCommands >= 1, 'asked RCPT');
      assert.equal(host.stats.dataCommands, 0, 'a probe never sends DATA');
    });
  }

  it('every provider behaviour is covered above, unknown and known mailbox alike', () => {
    for (const behaviour of PROVIDER_BEHAVIOURS) {
      const locals = CASES.filter(([name]) => name === behaviour).map(([, local]) => local);
      assert.ok(locals.includes(UNKNOWN) && locals.includes(KNOWN), behaviour);
    }
  });
});

describe('provider hosts on the wire', () => {
  it('follow the older behaviours, so existing hosts keep their addresses', () => {
    assert.deepEqual(BEHAVIOURS.slice(-PROVIDER_BEHAVIOURS.length), PROVIDER_BEHAVIOURS);
    assert.equal(world.hosts['accept-known'].host, '127.0.0.2');
    assert.equal(world.hosts['helo-only'].host, `127.0.0.${BEHAVIOURS.indexOf('helo-only') + 2}`);
  });

  it("gmail: Google's banner and its four-line NoSuchUser reply, line for line", async () => {
    const host = world.hosts.gmail;
    const client = await SmtpTestClient.connect(host.host, host.port);
    try {
      const banner = await client.readReply();
      assert.deepEqual(banner.lines, ['220 mx.google.com ESMTP a1si1234567qkb.123 - gsmtp']);
      assert.equal((await client.command('EHLO probe.mailvet.test')).code, 250);
      assert.equal((await client.command('MAIL FROM:<probe@mailvet.test>')).code, 250);
      const unknown = await client.command('RCPT TO:<nobody-here@gmail.test>');
      assert.deepEqual(unknown.lines, [
        '550-5.1.1 The email account that you tried to reach does not exist. Please try',
        "550-5.1.1 double-checking the recipient's email address for typos or",
        '550-5.1.1 unnecessary spaces. Learn more at',
        '550 5.1.1  https://support.google.com/mail/?p=NoSuchUser y3si675602plr.1 - gsmtp',
      ]);
      assert.equal((await client.command('RCPT TO:<Alice@gmail.test>')).code, 250, 'case-insensitive');
      assert.equal((await client.command(`RCPT TO:<${FULL}@gmail.test>`)).code, 452);
    } finally {
      client.destroy();
    }
  });

  it('per-host lists of full and disabled mailboxes are honoured', async () => {
    const tuned = await startMailWorld({
      tune: {
        gmail: { fullMailboxes: ['bob'], disabledMailboxes: [] },
        yahoo: { disabledMailboxes: ['erin'] },
      },
    });
    try {
      const codes = async (behaviour: BehaviourName, locals: string[]) => {
        const host = tuned.hosts[behaviour];
        const client = await SmtpTestClient.connect(host.host, host.port);
        try {
          await client.readReply();
          await client.command('EHLO probe.mailvet.test');
          await client.command('MAIL FROM:<probe@mailvet.test>');
          const result = [];
          for (const local of locals) {
            result.push((await client.command(`RCPT TO:<${local}@${WORLD_DOMAINS[behaviour]}>`)).code);
          }
          return result;
        } finally {
          client.destroy();
        }
      };
      assert.deepEqual(await codes('gmail', ['bob', FULL ?? '', DISABLED ?? '']), [452, 250, 250]);
      assert.deepEqual(await codes('yahoo', ['erin', DISABLED ?? '']), [554, 250]);
    } finally {
      await tuned.close();
    }
  });

  it('every refusal is a reply the corpus quotes, placeholders put back', () => {
    const quoted = corpusReplies();
    // Where the corpus quotes the address or IP, it writes one of these.
    const recipients = ['someone@example.com', 'someone@yahoo.com', 'someone@icloud.com'];
    const clientIp = '192.0.2.1';
    let checked = 0;
    for (const [name, table] of Object.entries(PROVIDER_REPLIES) as [string, ProviderReplies][]) {
      const refusals =
        table.answers === 'every-recipient'
          ? [(recipient: string) => table.reply(recipient, clientIp)]
          : [table.unknown, table.full, table.disabled].filter((reply) => reply !== undefined);
      for (const refusal of refusals) {
        const renderings = recipients.map((recipient) => {
          const { code, text } = refusal(recipient);
          const lines = text.split('\n');
          return lines.map((line, i) => `${code}${i < lines.length - 1 ? '-' : ' '}${line}`).join('\n');
        });
        // An acceptance is the servers' usual wording, not always quoted: only refusals must be.
        if (renderings[0]?.startsWith('2')) continue;
        checked++;
        assert.ok(
          renderings.some((rendering) => quoted.has(rendering)),
          `${name}: ${renderings[0]} is not in the corpus`,
        );
      }
    }
    assert.ok(checked >= PROVIDER_BEHAVIOURS.length, `only ${checked} refusals checked`);
  });
});

/** Every reply of tests/fixtures/smtp-reply-corpus/*.json and smtp-replies.json, lines joined with `\n`. */
function corpusReplies(): Set<string> {
  const fixtures = new URL('../fixtures/', import.meta.url);
  const corpus = new URL('smtp-reply-corpus/', fixtures);
  const quoted = new Set<string>();
  for (const file of readdirSync(corpus).filter((name) => name.endsWith('.json'))) {
    const { replies } = JSON.parse(readFileSync(new URL(file, corpus), 'utf8')) as {
      replies: { reply: string }[];
    };
    for (const { reply } of replies) quoted.add(reply);
  }
  const { fixtures: replies } = JSON.parse(readFileSync(new URL('smtp-replies.json', fixtures), 'utf8')) as {
    fixtures: { lines: string[] }[];
  };
  for (const { lines } of replies) quoted.add(lines.join('\n'));
  return quoted;
}
