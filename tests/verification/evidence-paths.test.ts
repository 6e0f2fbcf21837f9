/**
 * Evidence on every path a result leaves by, against the mail world: the real server's
 * POST /verify and /verify/bulk (whose response schema would silently drop a field it does not
 * list), a list's JSON results, a result served from the result cache, and `mailvet verify --json`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ListView } from '../../src/lists/list-view.ts';
import type { VerificationResult } from '../../src/verification/report.ts';
import { createJsonList, type ListServer, startListServer } from '../lists/list-server.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));

let lists: ListServer;
let key: string;

before(async () => {
  // The result cache on, so a repeated address is answered from it.
  lists = await startListServer({ MAILVET_RESULT_TTL: '3600' });
  key = await lists.key({ quota: 1000 });
});
after(() => lists.close());

async function postJson(path: string, body: unknown): Promise<Response> {
  return lists.api(key, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('evidence leaves by every path', () => {
  it('POST /verify: the rejected mailbox’s 550 5.1.1, its host and address, the catch-all probe', async () => {
    const response = await postJson('/verify', { email: 'nobody-here@accept.test' });
    assert.equal(response.status, 200);
    const body = (await response.json()) as VerificationResult;
    assert.equal(body.reason, 'mailbox_rejected');
    assert.equal(body.checks.catch_all_confidence, null);
    assert.equal(body.evidence.mx_host, 'mx.accept.test');
    assert.equal(body.evidence.mx_address, lists.world.hosts['accept-known'].host);
    assert.equal(body.evidence.provider, null);
    assert.equal(body.evidence.smtp_reply?.code, 550);
    assert.equal(body.evidence.smtp_reply?.enhanced_code, '5.1.1');
    assert.match(body.evidence.smtp_reply?.message ?? '', /User unknown/);
    assert.equal(body.evidence.catch_all_probe.outcome, 'rejected');
    assert.deepEqual(body.evidence.catch_all_signals, []);
  });

  it('POST /verify/bulk: every result carries its own evidence', async () => {
    const response = await postJson('/verify/bulk', {
      emails: ['alice@accept.test', 'anyone@catchall.test', 'not-an-address'],
    });
    assert.equal(response.status, 200);
    const { results } = (await response.json()) as { results: VerificationResult[] };
    const [confirmed, catchAll, syntax] = results;
    assert.equal(confirmed?.evidence.smtp_reply?.code, 250);
    assert.ok((confirmed?.evidence.smtp_reply?.message.length ?? 0) > 0);
    assert.equal(catchAll?.checks.catch_all, true);
    assert.equal(catchAll?.evidence.catch_all_probe.outcome, 'accepted');
    assert.equal(catchAll?.evidence.catch_all_probe.ran, true);
    assert.equal(catchAll?.evidence.catch_all_probe.reply?.code, 250);
    assert.equal(catchAll?.evidence.mx_address, lists.world.hosts['catch-all'].host);
    assert.deepEqual(syntax?.evidence, {
      mx_host: null,
      mx_address: null,
      provider: null,
      smtp_reply: null,
      catch_all_probe: { ran: false, outcome: null, reply: null },
      catch_all_signals: [],
    });
  });

  it('a result from the result cache keeps its evidence (the server is not asked again)', async () => {
    const host = lists.world.hosts['accept-known'];
    const first = (await (
      await postJson('/verify', { email: 'carol@accept.test' })
    ).json()) as VerificationResult;
    const rcpts = host.stats.rcptCommands;
    const again = (await (
      await postJson('/verify', { email: 'carol@accept.test' })
    ).json()) as VerificationResult;
    assert.equal(host.stats.rcptCommands, rcpts, 'answered from the cache');
    assert.equal(first.evidence.smtp_reply?.code, 250);
    assert.deepEqual(again.evidence, first.evidence);
    assert.deepEqual(again.checks, first.checks);
  });

  it("a list's JSON results carry the evidence of each row", async () => {
    const created = await createJsonList(lists, key, {
      name: 'evidence',
      emails: ['dave@accept.test', 'ghost-row@accept.test', 'someone@catchall.test', 'jane@nxdomain.test'],
    });
    await lists.waitFor(key, created.id, (list: ListView) => list.state === 'completed');
    const response = await lists.api(key, `/lists/${created.id}/results?format=json`);
    assert.equal(response.status, 200);
    const rows = (await response.json()) as Array<{ row: number; email: string; result: VerificationResult }>;
    assert.deepEqual(
      rows.map((row) => row.result.evidence.smtp_reply?.code ?? null),
      [250, 550, 250, null],
    );
    assert.equal(rows[1]?.result.evidence.smtp_reply?.enhanced_code, '5.1.1');
    assert.equal(rows[2]?.result.evidence.catch_all_probe.outcome, 'accepted');
    assert.equal(rows[3]?.result.evidence.mx_host, null);
    // Only the catch-all row is assessed (against the list's other addresses at its domain).
    assert.deepEqual(
      rows.map((row) => typeof row.result.checks.catch_all_confidence),
      ['object', 'object', 'number', 'object'],
    );
    assert.deepEqual(rows[0]?.result.evidence.catch_all_signals, []);
    assert.ok((rows[2]?.result.evidence.catch_all_signals.length ?? 0) > 0);
  });

  it('mailvet verify --json prints the evidence too', async () => {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [BIN, 'verify', 'nobody-cli@accept.test', '--json'],
        { env: { ...process.env, ...lists.world.env } },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    const result = JSON.parse(stdout) as VerificationResult;
    assert.equal(result.evidence.smtp_reply?.code, 550);
    assert.equal(result.evidence.smtp_reply?.enhanced_code, '5.1.1');
    assert.equal(result.evidence.mx_host, 'mx.accept.test');
    assert.equal(result.checks.catch_all_confidence, null);
  });

  it('mailvet verify without --json names the reply that decided', async () => {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [BIN, 'verify', 'nobody-line@accept.test'],
        { env: { ...process.env, ...lists.world.env } },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    assert.match(
      stdout,
      /^nobody-line@accept\.test\s+INVALID\s+score 5\s+mailbox_rejected\s+smtp undeliverable\s+reply 550 5\.1\.1/,
    );
  });
});
