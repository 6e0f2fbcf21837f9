/**
 * A list run reads the list's own addresses at a catch-all domain as peers: the real server with
 * its in-process worker, the mail world's catch-all SMTP host on loopback. Where most addresses
 * follow first.last, one in another shape is told so (`pattern_mismatch`) and scores lower.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ListView } from '../../src/lists/list-view.ts';
import { createJsonList, type ListServer, startListServer } from './list-server.ts';

let lists: ListServer;
let key: string;

before(async () => {
  lists = await startListServer();
  key = await lists.key();
});
after(() => lists?.close());

interface Row {
  email: string;
  result: {
    reason: string;
    score: number;
    checks: { catch_all_confidence: number | null };
    evidence: { catch_all_signals: Array<{ signal: string; weight: number }> };
  } | null;
}

describe('a list at a catch-all domain', () => {
  it('gives an address off the dominant pattern a pattern_mismatch and a lower score', async () => {
    const domain = lists.world.domains['catch-all'];
    const followers = [
      'john.smith',
      'mary.johnson',
      'robert.brown',
      'linda.davis',
      'susan.clark',
      'james.wilson',
    ];
    const emails = [...followers, 'pmoore'].map((local) => `${local}@${domain}`);
    const created = await createJsonList(lists, key, { name: 'catch-all peers', emails });
    await lists.waitFor(key, created.id, (list: ListView) => list.state === 'completed');
    const response = await lists.api(key, `/lists/${created.id}/results?format=json`);
    assert.equal(response.status, 200);
    const rows = (await response.json()) as Row[];
    const byLocal = new Map(rows.map((row) => [row.email.split('@')[0], row.result!]));
    const follower = byLocal.get('james.wilson')!;
    const offPattern = byLocal.get('pmoore')!;
    assert.equal(follower.reason, 'catch_all');
    assert.equal(offPattern.reason, 'catch_all');
    const signals = (result: typeof follower) => result.evidence.catch_all_signals.map((one) => one.signal);
    assert.ok(signals(offPattern).includes('pattern_mismatch'), JSON.stringify(offPattern.evidence));
    assert.ok(signals(follower).includes('pattern_match'), JSON.stringify(follower.evidence));
    assert.ok(follower.checks.catch_all_confidence! > offPattern.checks.catch_all_confidence!);
    assert.ok(follower.score > offPattern.score, `${follower.score} > ${offPattern.score}`);
  });
});
