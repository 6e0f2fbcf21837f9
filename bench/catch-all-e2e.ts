/**
 * Catch-all confidence end to end: the held-out corpus's world (bench/catch-all-world.ts) served by
 * the mail world's DNS and catch-all SMTP host, the real server on it (store, queue, in-process
 * worker, HTTP), the corpus's feedback recorded through `POST /api/v1/feedback/bulk`, and all the
 * corpus's addresses uploaded as ONE list through `POST /api/v1/lists`, as a customer's list holds
 * many domains. Peers are a list's addresses at the same domain, so one list gives each address
 * the same peers as one list per domain would. The AUC of `checks.catch_all_confidence` and of
 * `score` from the JSON results, beside the flat 70 and the model fed the corpus's own inputs.
 */
import { fileURLToPath } from 'node:url';
import { assessCatchAll } from '../src/verification/catch-all/index.ts';
import type { VerificationResult } from '../src/verification/report.ts';
import { createJsonList, startListServer } from '../tests/lists/list-server.ts';
import { auc, benchCatchAll, loadCorpus } from './catch-all.ts';
import {
  catchAllWorldZones,
  type FeedbackEventBody,
  feedbackEvents,
  readCorpusDomains,
} from './catch-all-world.ts';

/** Figures of one end-to-end run. */
export interface CatchAllE2eFigures {
  split: string;
  addresses: number;
  real: number;
  domains: number;
  feedbackEvents: number;
  /** Results that are the catch-all verdict with a confidence (the others rank lowest). */
  withConfidence: number;
  flat: number;
  /** The model on the corpus's own inputs (what `npm run bench -- catch-all` reports). */
  modelOnCorpus: number;
  /** The same without the corpus's confirmed peers, which a list run does not read. */
  modelWithoutConfirmed: number;
  serviceConfidence: number;
  serviceScore: number;
  /** The confidence's AUC over the results that carry one (the others left out, not ranked lowest). */
  serviceConfidenceWhereGiven: number;
  /** Addresses whose service confidence equals the model's without confirmed peers. */
  sameAsModel: number;
  /** The results without a confidence, counted by `status/reason` and label. */
  otherVerdicts: Record<string, number>;
  startMs: number;
  listMs: number;
  totalMs: number;
}

/** Runs the corpus split through the service once. */
export async function benchCatchAllE2e(
  split: 'tuning' | 'held-out' = 'held-out',
): Promise<CatchAllE2eFigures> {
  const began = performance.now();
  const domains = readCorpusDomains(split);
  const cases = loadCorpus(split);
  const labels = cases.map((c) => c.label);
  const emails = cases.map((c) => `${c.input.localPart}@${c.input.domain}`);
  const server = await startListServer();
  try {
    Object.assign(server.world.dns.zones, catchAllWorldZones(domains, server.world.hosts['catch-all'].host));
    const key = await server.key({ name: 'catch-all e2e', rate: 1000 });
    const startMs = performance.now() - began;

    const listStarted = performance.now();
    const events = domains.flatMap(feedbackEvents);
    await postFeedback(server.api, key, events);
    const created = await createJsonList(server, key, { name: `catch-all ${split}`, emails });
    const done = await server.waitFor(
      key,
      created.id,
      (list) => list.state !== 'queued' && list.state !== 'running',
      300_000,
    );
    if (done.state !== 'completed') throw new Error(`list ended ${done.state}: ${done.message}`);
    const response = await server.api(key, `/lists/${created.id}/results?format=json`);
    const rows = (await response.json()) as Array<{
      row: number;
      email: string;
      result: VerificationResult | null;
    }>;
    const listMs = performance.now() - listStarted;

    const results = emails.map((email, i) => {
      const row = rows[i];
      if (row?.email !== email || row.result === null)
        throw new Error(`row ${i + 1} is not ${email}'s result`);
      return row.result;
    });
    const confidences = results.map((r) => r.checks.catch_all_confidence ?? null);
    const withoutConfirmed = cases.map(
      (c) =>
        assessCatchAll({ ...c.input, peers: (c.input.peers ?? []).filter((p) => !p.confirmed) }).confidence,
    );
    return {
      split,
      addresses: cases.length,
      real: labels.filter((l) => l === 1).length,
      domains: domains.length,
      feedbackEvents: events.length,
      withConfidence: confidences.filter((c) => c !== null).length,
      flat: auc(
        cases.map(() => 70),
        labels,
      ),
      modelOnCorpus: benchCatchAll(split).model,
      modelWithoutConfirmed: auc(withoutConfirmed, labels),
      serviceConfidence: auc(
        confidences.map((c) => c ?? -1),
        labels,
      ),
      serviceConfidenceWhereGiven: auc(
        confidences.filter((c) => c !== null),
        labels.filter((_, i) => confidences[i] !== null),
      ),
      serviceScore: auc(
        results.map((r) => r.score),
        labels,
      ),
      sameAsModel: confidences.filter((c, i) => c === withoutConfirmed[i]).length,
      otherVerdicts: countOtherVerdicts(results, labels),
      startMs,
      listMs,
      totalMs: performance.now() - began,
    };
  } finally {
    await server.close();
  }
}

/** Results that are not the catch-all verdict, by `status/reason label` (label 1 real, 0 not). */
function countOtherVerdicts(
  results: readonly VerificationResult[],
  labels: readonly (0 | 1)[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  results.forEach((result, i) => {
    if (result.checks.catch_all_confidence != null) return;
    const key = `${result.status}/${result.reason} ${labels[i]}`;
    counts[key] = (counts[key] ?? 0) + 1;
  });
  return counts;
}

/** Records the events in requests of at most 10,000 (the bulk route's limit). */
async function postFeedback(
  api: Awaited<ReturnType<typeof startListServer>>['api'],
  key: string,
  events: readonly FeedbackEventBody[],
): Promise<void> {
  for (let i = 0; i < events.length; i += 10_000) {
    const response = await api(key, '/feedback/bulk', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: events.slice(i, i + 10_000) }),
    });
    if (!response.ok) throw new Error(`POST /feedback/bulk: ${response.status} ${await response.text()}`);
  }
}

/** Prints the figures the way docs/benchmarks.md records them. */
export function printCatchAllE2eFigures(figures: CatchAllE2eFigures): void {
  const pad = (label: string) => label.padEnd(48);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `\ncatch-all confidence end to end, ${figures.split} split through the service: ${figures.addresses} addresses at ${figures.domains} domains, ${figures.real} real, ${figures.feedbackEvents} feedback events — AUC`,
  );
  console.log(`  ${pad('flat 70 (today)')}${figures.flat.toFixed(3)}`);
  console.log(`  ${pad('model on the corpus inputs')}${figures.modelOnCorpus.toFixed(3)}`);
  console.log(
    `  ${pad('model on the corpus inputs, no confirmed peers')}${figures.modelWithoutConfirmed.toFixed(3)}`,
  );
  console.log(`  ${pad('service, confidence (none ranks lowest)')}${figures.serviceConfidence.toFixed(3)}`);
  console.log(
    `  ${pad(`service, confidence, the ${figures.withConfidence} that carry one`)}${figures.serviceConfidenceWhereGiven.toFixed(3)}`,
  );
  console.log(`  ${pad('service, score')}${figures.serviceScore.toFixed(3)}`);
  console.log(
    `  ${figures.withConfidence} of ${figures.addresses} results carry a confidence; ${figures.sameAsModel} equal the model's without confirmed peers`,
  );
  for (const [verdict, count] of Object.entries(figures.otherVerdicts).sort()) {
    console.log(`    without one: ${verdict.padEnd(36)}${String(count).padStart(5)}`);
  }
  console.log(
    `  took ${seconds(figures.totalMs)} (world and server ${seconds(figures.startMs)}, feedback + list + results ${seconds(figures.listMs)})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printCatchAllE2eFigures(await benchCatchAllE2e(process.argv.includes('--tuning') ? 'tuning' : 'held-out'));
}
