/**
 * SMTP benchmark (SMTP issue): 100 addresses at one domain in ONE bulk request to the API, against
 * a mail-world server that answers every command 20 ms after it arrives (a 20 ms round trip).
 * Counts SMTP connections and wall time, against one /verify, and side by side with the
 * `deep-email-validator` package verifying the same 100 mailboxes on the same server (one
 * connection per address, all at once). The server offers PIPELINING, as most MX hosts do.
 *
 * Rounds alternate (Mailvet's bulk, then the peer, `rounds` times) and each side's median counts: a
 * single pair of ~150 ms runs on a shared 2-core machine swung from 1.07× to 1.41× between
 * minutes. Each Mailvet round is a fresh service (a cold catch-all cache and no SMTP session open)
 * that has first answered one bulk request at another mail host, as a running service has: the
 * first request of a process also compiles the route's validator and serializer and the probe's
 * code, which the peer, a library already loaded, does not pay. That first request's time is
 * printed too.
 */
import dns from 'node:dns';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import deepEmailValidator from 'deep-email-validator';
import { issueApiKey } from '../src/accounts/key-issuance.ts';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/container/index.ts';
import { buildApp } from '../src/http/app.ts';
import { startMailWorld } from '../tests/mailworld/mail-world.ts';
import { median } from './stats.ts';

export interface SmtpFigures {
  addresses: number;
  singleVerifyMs: number;
  /** The median of the rounds' bulk requests. */
  bulkMs: number;
  /** The most connections any round's bulk opened. */
  bulkConnections: number;
  /** The fewest deliverable results of any round's bulk. */
  bulkDeliverable: number;
  /** The median of the peer's rounds. */
  peerMs: number;
  peerConnections: number;
  peerValid: number;
  /** Each round's bulk and peer wall time, in the order run. */
  rounds: Array<{ bulkMs: number; peerMs: number }>;
  /** A fresh service's first request at all: the bulk of the first round, before any warm-up. */
  coldBulkMs: number;
}

const WARM_UP_EMAILS = ['alice@accept.test', 'bob@accept.test'];

/** Runs the benchmark; the mail world listens on port 25 because the peer only uses 25. */
export async function benchSmtp(count = 100, rounds = 3): Promise<SmtpFigures> {
  const world = await startMailWorld({ port: 25 });
  const host = world.hosts['reply-delay'];
  // The peer connects to the MX name with the system resolver (getaddrinfo), which cannot see the
  // world's DNS: its domain's MX is the same server, named by its address.
  world.dns.zones['peer.slow.test'] = { mx: [{ exchange: host.host, priority: 10 }] };
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-bench-smtp-'));
  const env = {
    ...world.env,
    MAILVET_DATA_DIR: dataDir,
    MAILVET_RESULT_TTL: '0',
    MAILVET_SMTP_TIMEOUT_MS: '5000',
    MAILVET_SMTP_PROBE_TIMEOUT_MS: '20000',
  };
  const locals = Array.from({ length: count }, (_, i) => `user${i + 1}`);
  const bulkOnce = async (post: Post) => {
    const started = performance.now();
    const body = (await post('/api/v1/verify/bulk', { emails: locals.map((l) => `${l}@slow.test`) })) as {
      results: Array<{ checks: { smtp: string } }>;
    };
    const ms = performance.now() - started;
    return { ms, deliverable: body.results.filter((r) => r.checks.smtp === 'deliverable').length };
  };
  const warmUp = (post: Post) => post('/api/v1/verify/bulk', { emails: WARM_UP_EMAILS });
  const peerOnce = async () => {
    const started = performance.now();
    const peer = await Promise.all(
      locals.map((local) =>
        deepEmailValidator({
          email: `${local}@peer.slow.test`,
          sender: 'verify@probe.mailvet.test',
          validateRegex: true,
          validateMx: true,
          validateTypo: false,
          validateDisposable: false,
          validateSMTP: true,
        }),
      ),
    );
    return { ms: performance.now() - started, valid: peer.filter((r) => r.valid).length };
  };
  try {
    // A fresh service each time, so each measurement starts with a cold catch-all cache.
    const single = await apiRun(env, async (post) => {
      await warmUp(post);
      const started = performance.now();
      await post('/api/v1/verify', { email: `${locals[0]}@slow.test` });
      return performance.now() - started;
    });
    const cold = await apiRun(env, bulkOnce);
    dns.setServers([world.servers]);
    const measured = [];
    for (let round = 0; round < rounds; round++) {
      host.reset();
      const bulk = await apiRun(env, async (post) => {
        await warmUp(post);
        return bulkOnce(post);
      });
      const bulkConnections = host.stats.connections;
      host.reset();
      const peer = await peerOnce();
      measured.push({ bulk, bulkConnections, peer, peerConnections: host.stats.connections });
    }
    return {
      addresses: count,
      singleVerifyMs: single,
      bulkMs: median(measured.map((each) => each.bulk.ms)),
      bulkConnections: Math.max(...measured.map((each) => each.bulkConnections)),
      bulkDeliverable: Math.min(...measured.map((each) => each.bulk.deliverable)),
      peerMs: median(measured.map((each) => each.peer.ms)),
      peerConnections: Math.max(...measured.map((each) => each.peerConnections)),
      peerValid: Math.min(...measured.map((each) => each.peer.valid)),
      rounds: measured.map((each) => ({ bulkMs: each.bulk.ms, peerMs: each.peer.ms })),
      coldBulkMs: cold.ms,
    };
  } finally {
    await world.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type Post = (path: string, body: unknown) => Promise<unknown>;

/** Builds the API as production does (createServices + buildApp), runs `work`, and closes it. */
async function apiRun<T>(env: Record<string, string>, work: (post: Post) => Promise<T>): Promise<T> {
  const services = await createServices(loadConfig(env));
  const app = buildApp(services);
  await app.ready();
  const key = await issueApiKey(services.store, {
    name: 'bench',
    plan: 'pro',
    monthlyQuota: 1_000_000_000,
    bulkQuota: 1_000_000,
    rateLimit: 100_000,
  });
  const post: Post = async (path, body) => {
    const response = await app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${response.body}`);
    return response.json();
  };
  try {
    return await work(post);
  } finally {
    await app.close();
    await services.close();
  }
}

/** Prints a run's figures with their targets: the bulk within 1.5× the peer's wall time, on ≤ 3 connections. */
export function printSmtpFigures(smtp: SmtpFigures): void {
  console.log(`\nSMTP probe, ${smtp.addresses} addresses at one domain in one bulk request, 20 ms per reply`);
  console.log(`  one /verify                  ${smtp.singleVerifyMs.toFixed(0)} ms`);
  console.log(
    `  bulk of ${smtp.addresses}                  ${smtp.bulkMs.toFixed(0)} ms (${(smtp.bulkMs / smtp.peerMs).toFixed(2)}× deep-email-validator, target ≤ 1.5×; ${(smtp.bulkMs / smtp.singleVerifyMs).toFixed(2)}× one /verify), ${smtp.bulkConnections} SMTP connections (target ≤ 3), ${smtp.bulkDeliverable} deliverable`,
  );
  console.log(
    `  deep-email-validator         ${smtp.peerMs.toFixed(0)} ms, ${smtp.peerConnections} SMTP connections, ${smtp.peerValid} valid`,
  );
  console.log(
    `  medians of ${smtp.rounds.length} alternating rounds: ${smtp.rounds.map((r) => `${r.bulkMs.toFixed(0)}/${r.peerMs.toFixed(0)}`).join(', ')} ms (bulk/peer)`,
  );
  console.log(
    `  a fresh process's first request, the bulk unwarmed: ${smtp.coldBulkMs.toFixed(0)} ms (${(smtp.coldBulkMs / smtp.peerMs).toFixed(2)}× the peer's median)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printSmtpFigures(await benchSmtp());
}
