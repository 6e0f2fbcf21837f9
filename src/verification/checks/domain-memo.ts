/**
 * Answers about domains, remembered: domains repeat a lot in real traffic (a list is mostly a few
 * providers), and the stages that only read the domain give the same answer every time. Two
 * generations: lookups and inserts stay O(1), and when the young one is full it becomes the old
 * one, so memory is bounded by twice `generationSize` domains.
 */
export class DomainMemo<T> {
  readonly #generationSize: number;
  #recent = new Map<string, T>();
  #older = new Map<string, T>();

  constructor(generationSize = 10_000) {
    this.#generationSize = generationSize;
  }

  /** The remembered answer for `domain`, or `answer(domain)` (then remembered). */
  get(domain: string, answer: (domain: string) => T): T {
    const remembered = this.#recent.get(domain);
    if (remembered !== undefined) return remembered;
    const fromOlder = this.#older.get(domain);
    const value = fromOlder !== undefined ? fromOlder : answer(domain);
    if (this.#recent.size >= this.#generationSize) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(domain, value);
    return value;
  }
}
