/**
 * Catch-all confidence benchmark: how well the model orders the held-out corpus
 * (tests/fixtures/catch-all/held-out.jsonl, synthetic; see its README) by how likely each address
 * is real, as AUC: the chance that a random real address gets a higher confidence than a random
 * non-existent one, ties counting half. Beside it, the flat 70 every catch-all address gets today
 * (0.5 by construction) and the model restricted to one group of signals at a time, so each
 * group's part is visible. A quality figure, not a timing.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  assessCatchAll,
  BASE_LOG_ODDS,
  type CatchAllInput,
  type CatchAllSignal,
  type DomainFeedback,
  type MailPosture,
  type MxProvider,
  type SignalName,
  toConfidence,
} from '../src/verification/catch-all/index.ts';

/** One synthetic catch-all domain of the corpus, as a line of the JSONL files. */
export interface CorpusDomain {
  domain: string;
  /** The naming pattern its real mailboxes follow (truth; the model never reads it). */
  pattern: string;
  provider: MxProvider | null;
  posture: MailPosture | null;
  feedback: DomainFeedback | null;
  /** Addresses known delivered in the account (peers with `confirmed: true`); all real. */
  confirmed: string[];
  /** The list's addresses at this domain: each one is assessed with the others as peers. */
  addresses: CorpusAddress[];
}

/** One address of a corpus domain and its truth. */
export interface CorpusAddress {
  localPart: string;
  /** 1: a real mailbox; 0: nobody's. */
  label: 0 | 1;
  /** How the generator made it (`employee`, `role`, `random`, `mash`, `typo`...), for error analysis. */
  kind: string;
}

/** One assessed address: its truth, its kind and its full input. */
export interface CorpusCase {
  label: 0 | 1;
  kind: string;
  input: CatchAllInput;
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The corpus split `name` (`tuning` or `held-out`) as assessable cases, peers filled in as the pipeline would. */
export function loadCorpus(name: 'tuning' | 'held-out'): CorpusCase[] {
  const text = readFileSync(`${ROOT}tests/fixtures/catch-all/${name}.jsonl`, 'utf8');
  const cases: CorpusCase[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const domain = JSON.parse(line) as CorpusDomain;
    const confirmed = domain.confirmed.map((localPart) => ({ localPart, confirmed: true }));
    domain.addresses.forEach((address, i) => {
      const others = domain.addresses
        .filter((_, j) => j !== i)
        .map((other) => ({ localPart: other.localPart, confirmed: false }));
      cases.push({
        label: address.label,
        kind: address.kind,
        input: {
          localPart: address.localPart,
          domain: domain.domain,
          provider: domain.provider,
          posture: domain.posture,
          feedback: domain.feedback,
          peers: [...confirmed, ...others],
        },
      });
    });
  }
  return cases;
}

/** AUC of `scores` against `labels`: P(score of a real one > score of a fake one), ties half. */
export function auc(scores: readonly number[], labels: readonly (0 | 1)[]): number {
  const order = scores.map((score, i) => ({ score, label: labels[i]! })).sort((a, b) => a.score - b.score);
  let positives = 0;
  let negatives = 0;
  let rankSum = 0;
  // Mid-ranks for ties (Mann–Whitney U).
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j < order.length && order[j]!.score === order[i]!.score) j++;
    const midRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) {
      if (order[k]!.label === 1) {
        positives++;
        rankSum += midRank;
      } else negatives++;
    }
    i = j;
  }
  if (positives === 0 || negatives === 0) return Number.NaN;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/** Signal groups for the one-group-at-a-time baselines. */
export const SIGNAL_GROUPS: Record<string, readonly SignalName[]> = {
  'pattern vs peers': ['pattern_match', 'pattern_compatible', 'pattern_mismatch', 'near_peer'],
  'name lists': ['name_like', 'name_partial'],
  gibberish: ['gibberish'],
  'digits and roles': ['numeric_heavy', 'role_local_part'],
  'provider and posture': [
    'provider_mailbox_host',
    'provider_security_gateway',
    'spf_sane',
    'spf_weak',
    'spf_absent',
    'dmarc_enforced',
    'dmarc_monitoring',
    'dmarc_absent',
  ],
  feedback: ['feedback_bounce_rate'],
};

/** The confidence the model would give with only the signals `keep` accepts. */
export function confidenceWith(
  signals: readonly CatchAllSignal[],
  keep: (name: SignalName) => boolean,
): number {
  return toConfidence(
    signals.filter((s) => keep(s.signal)).reduce((sum, s) => sum + s.weight, BASE_LOG_ODDS),
  );
}

/** Figures of one corpus split. */
export interface CatchAllFigures {
  split: string;
  addresses: number;
  real: number;
  flat: number;
  model: number;
  only: Record<string, number>;
  without: Record<string, number>;
  /** Mean confidence of real and non-existent addresses, per kind. */
  meanByKind: Record<string, { count: number; mean: number }>;
}

/** AUCs of the full model, the flat score, each signal group alone and the model without each group. */
export function benchCatchAll(split: 'tuning' | 'held-out' = 'held-out'): CatchAllFigures {
  const cases = loadCorpus(split);
  const labels = cases.map((c) => c.label);
  const assessed = cases.map((c) => assessCatchAll(c.input));
  const only: Record<string, number> = {};
  const without: Record<string, number> = {};
  for (const [group, names] of Object.entries(SIGNAL_GROUPS)) {
    only[group] = auc(
      assessed.map((a) => confidenceWith(a.signals, (name) => names.includes(name))),
      labels,
    );
    without[group] = auc(
      assessed.map((a) => confidenceWith(a.signals, (name) => !names.includes(name))),
      labels,
    );
  }
  const meanByKind: Record<string, { count: number; mean: number }> = {};
  cases.forEach((c, i) => {
    const key = `${c.label} ${c.kind}`;
    const entry = meanByKind[key] ?? { count: 0, mean: 0 };
    meanByKind[key] = entry;
    entry.mean = (entry.mean * entry.count + assessed[i]!.confidence) / (entry.count + 1);
    entry.count++;
  });
  return {
    split,
    addresses: cases.length,
    real: labels.filter((l) => l === 1).length,
    flat: auc(
      cases.map(() => 70),
      labels,
    ),
    model: auc(
      assessed.map((a) => a.confidence),
      labels,
    ),
    only,
    without,
    meanByKind,
  };
}

/** Prints the figures the way docs/benchmarks.md records them. */
export function printCatchAllFigures(figures: CatchAllFigures): void {
  const pad = (label: string) => label.padEnd(30);
  console.log(
    `\ncatch-all confidence, ${figures.split} split (synthetic): ${figures.addresses} addresses, ${figures.real} real — AUC`,
  );
  console.log(`  ${pad('flat 70 (today)')}${figures.flat.toFixed(3)}`);
  console.log(`  ${pad('model, all signals')}${figures.model.toFixed(3)}`);
  for (const group of Object.keys(SIGNAL_GROUPS)) {
    console.log(
      `  ${pad(`${group} alone`)}${figures.only[group]!.toFixed(3)}   model without it ${figures.without[group]!.toFixed(3)}`,
    );
  }
  console.log('  mean confidence by kind (label kind: count mean)');
  for (const [kind, { count, mean }] of Object.entries(figures.meanByKind).sort()) {
    console.log(`    ${kind.padEnd(24)}${String(count).padStart(5)} ${mean.toFixed(1)}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const split = process.argv.includes('--tuning') ? 'tuning' : 'held-out';
  printCatchAllFigures(benchCatchAll(split));
}
