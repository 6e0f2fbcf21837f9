/**
 * SMTP benchmark (SMTP issue): 100 addresses at one domain in ONE bulk request to the API, against
 * a mail-world server that answers every command 20 ms after it arrives (a 20 ms round trip).
 * Counts SMTP connections and wall time, against one /verify, and side by side with the
 * `deep-email-validator` package verifying the same 100 mailboxes on the same server (one
 * connection per address, all at once). The server offers PIPELINING, as most MX hosts do.
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

export interface SmtpFigures {
  addresses: number;
  singleVerifyMs: number;
  bulkMs: number;
  bulkConnections: number;
  bulkDeliverable: number;
  peerMs: number;
  peerConnections: number;
  peerValid: number;
}

/** Runs the benchmark once; the mail world listens on port 25 because the peer only uses 25. */
export async function benchSmtp(count = 100): Promise<SmtpFigures> {
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
  try {
    // A fresh service each time, so each measurement starts with a cold catch-all cache.
    const single = await apiRun(env, async (post) => {
      const started = performance.now();
      await post('/api/v1/verify', { email: `${locals[0]}@slow.test` });
      return performance.now() - started;
    });
    host.reset();
    const bulk = await apiRun(env, async (post) => {
      const started = performance.now();
      const body = (await post('/api/v1/verify/bulk', { emails: locals.map((l) => `${l}@slow.test`) })) as {
        results: Array<{ checks: { smtp: string } }>;
      };
      const ms = performance.now() - started;
      return { ms, deliverable: body.results.filter((r) => r.checks.smtp === 'deliverable').length };
    });
    const bulkConnections = host.stats.connections;

    host.reset();
    dns.setServers([world.servers]);
    const peerStarted = performance.now();
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
    const peerMs = performance.now() - peerStarted;
    return {
      addresses: count,
      singleVerifyMs: single,
      bulkMs: bulk.ms,
      bulkConnections,
      bulkDeliverable: bulk.deliverable,
      peerMs,
      peerConnections: host.stats.connections,
      peerValid: peer.filter((r) => r.valid).length,
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
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printSmtpFigures(await benchSmtp());
}
