/**
 * Which proxy a probed domain goes through: the same one every time, an even share for each, and
 * a change in the list moves only the domains it has to (rendezvous hashing).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Dialer } from '../../../src/adapters/smtp/dialer.ts';
import { EgressChoice } from '../../../src/adapters/smtp/egress-choice.ts';

const dialer = (id: string): Dialer => ({
  id,
  helo: undefined,
  dial: () => Promise.resolve({ ok: false, failure: 'connect_failed', detail: 'not dialled in this test' }),
});
const a = dialer('socks5://10.0.0.1:1080');
const b = dialer('socks5://10.0.0.2:1080');
const c = dialer('socks5://user@10.0.0.3:1080');
const d = dialer('socks5://10.0.0.4:1080');
const DOMAINS = Array.from({ length: 3000 }, (_, i) => `domain-${i}.example`);

function assignment(choice: EgressChoice): Map<string, string> {
  return new Map(DOMAINS.map((domain) => [domain, choice.for(domain).id]));
}

describe('EgressChoice', () => {
  it('one dialer: every domain goes through it', () => {
    const choice = new EgressChoice([a]);
    assert.ok(DOMAINS.every((domain) => choice.for(domain) === a));
  });

  it('the same domain always gets the same dialer, whatever the list order or case of the name', () => {
    const first = assignment(new EgressChoice([a, b, c]));
    assert.deepEqual(assignment(new EgressChoice([c, a, b])), first);
    const choice = new EgressChoice([a, b, c]);
    for (const domain of DOMAINS.slice(0, 100)) {
      assert.equal(choice.for(domain.toUpperCase()).id, first.get(domain));
    }
  });

  it('spreads domains about evenly', () => {
    const counts = new Map<string, number>();
    for (const id of assignment(new EgressChoice([a, b, c])).values())
      counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const egress of [a, b, c]) {
      const share = (counts.get(egress.id) ?? 0) / DOMAINS.length;
      assert.ok(share > 0.28 && share < 0.39, `${egress.id}: ${share}`);
    }
  });

  it('removing a dialer moves only its own domains', () => {
    const before = assignment(new EgressChoice([a, b, c]));
    const after = assignment(new EgressChoice([a, b]));
    let moved = 0;
    for (const [domain, id] of before) {
      if (id === c.id) moved += 1;
      else assert.equal(after.get(domain), id, domain);
    }
    assert.ok(moved > 0);
  });

  it('adding a dialer takes domains only onto the new one', () => {
    const before = assignment(new EgressChoice([a, b, c]));
    const after = assignment(new EgressChoice([a, b, c, d]));
    let taken = 0;
    for (const [domain, id] of after) {
      if (id === d.id) taken += 1;
      else assert.equal(before.get(domain), id, domain);
    }
    assert.ok(taken > DOMAINS.length * 0.18 && taken < DOMAINS.length * 0.32, `${taken}`);
  });
});
