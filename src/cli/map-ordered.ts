/**
 * Maps an async source with at most `concurrency` calls in flight, yielding results in source
 * order. Memory stays bounded by the window, whatever the source's length.
 */
export async function* mapOrdered<T, R>(
  source: AsyncIterable<T>,
  concurrency: number,
  work: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const window: Promise<{ ok: true; value: R } | { ok: false; error: unknown }>[] = [];
  const settle = (item: T) =>
    work(item).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
  const take = async (): Promise<R> => {
    const outcome = await window.shift()!;
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  };
  for await (const item of source) {
    window.push(settle(item));
    if (window.length >= Math.max(1, concurrency)) yield await take();
  }
  while (window.length > 0) yield await take();
}
