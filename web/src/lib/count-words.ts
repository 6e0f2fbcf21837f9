/**
 * A count with its noun, singular for exactly one: "1 member", "2 members", "0 members". The number
 * is grouped as formatCount groups it; the module stands alone (no imports) for its unit test in
 * tests/web, which runs on Node's resolution.
 */

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

export function countWords(count: number, one: string, many: string): string {
  return `${integer.format(count)} ${count === 1 ? one : many}`;
}
