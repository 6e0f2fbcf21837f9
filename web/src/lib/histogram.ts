/** The score histogram of a list: scores 0–100 in ten bins (the last one holds 90 to 100). */

export interface ScoreBin {
  /** `0–9`, …, `90–100`. */
  label: string;
  from: number;
  to: number;
  count: number;
}

export const BIN_COUNT = 10;

/** Bins the scores; a score out of 0–100 is clamped into the nearest bin. */
export function scoreBins(scores: Iterable<number>): ScoreBin[] {
  const bins: ScoreBin[] = Array.from({ length: BIN_COUNT }, (_, i) => {
    const from = i * 10;
    const to = i === BIN_COUNT - 1 ? 100 : from + 9;
    return { label: `${from}–${to}`, from, to, count: 0 };
  });
  for (const score of scores) {
    const index = Math.min(BIN_COUNT - 1, Math.max(0, Math.floor(score / 10)));
    bins[index]!.count += 1;
  }
  return bins;
}
