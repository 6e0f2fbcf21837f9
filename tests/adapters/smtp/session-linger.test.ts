/**
 * A list's probe session waits a moment for the list's next addresses at its domain before it
 * quits (a list's next batch is a database round trip away); a request's session quits as soon as
 * its probes are answered. Against the mail world's reply-delay host, wired as production wires
 * it (createVerifier from configuration).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../../src/config.ts';
import { createVerifier } from '../../../src/container/index.ts';
import type { Verifier } from '../../../src/verification/pipeline.ts';
import { type MailWorld, startMailWorld } from '../../mailworld/mail-world.ts';

let world: MailWorld;

before(async () => {
  world = await startMailWorld({ tune: { 'reply-delay': { replyDelayMs: 2 } } });
});
after(async () => {
  await world.close();
});

function verifier(lingerMs: number): Promise<Verifier> {
  return createVerifier(
    loadConfig({
      ...world.env,
      MAILVET_SMTP_HELO: 'probe.mailvet.test',
      MAILVET_SMTP_SESSION_LINGER_MS: String(lingerMs),
    }),
  );
}

/**
 * Two batches of one domain's addresses, the second `gapMs` after the first is answered. The gaps
 * are far from the linger (20 ms against 3 s, 300 ms against 30 ms) so a busy machine changes
 * nothing.
 */
async function twoBatches(moreToCome: boolean, lingerMs: number, gapMs: number): Promise<void> {
  const probe = await verifier(lingerMs);
  const batch = (locals: string[]) =>
    Promise.all(locals.map((local) => probe.report(`${local}@slow.test`, { moreToCome })));
  for (const report of await batch(['user1', 'nobody1', 'user2'])) assert.ok(report.smtp);
  await sleep(gapMs);
  const second = await batch(['user3', 'nobody2']);
  assert.deepEqual(
    second.map((report) => report.smtp?.verdict),
    ['deliverable', 'undeliverable'],
  );
}

describe('session linger', () => {
  it("a list's next batch, a few ms later, is asked on the same connection", async () => {
    world.resetStats();
    await twoBatches(true, 3000, 20);
    assert.equal(world.hosts['reply-delay'].stats.connections, 1);
  });

  it("a request's session quits once its probes are answered: the next request opens its own", async () => {
    world.resetStats();
    await twoBatches(false, 3000, 20);
    assert.equal(world.hosts['reply-delay'].stats.connections, 2);
  });

  it('a list session does not wait longer than its linger: a batch much later opens a new connection', async () => {
    world.resetStats();
    await twoBatches(true, 30, 300);
    assert.equal(world.hosts['reply-delay'].stats.connections, 2);
  });
});
