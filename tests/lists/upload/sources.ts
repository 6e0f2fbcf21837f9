/** Upload sources for the parser tests: chunked, byte by byte, or held open by the test. */

/** Yields the given chunks in order. */
export async function* chunks(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array | string> {
  yield* parts;
}

/** Yields `text` (UTF-8) one byte at a time: every multi-byte character is split. */
export async function* byteByByte(text: string | Uint8Array): AsyncGenerator<Uint8Array> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (let i = 0; i < bytes.length; i += 1) yield bytes.subarray(i, i + 1);
}

/** A source whose end the test controls: `ended` tells whether the parser read past `head`. */
export function heldOpen(head: string, tail: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { ended: false, release };
  async function* source(): AsyncGenerator<Uint8Array> {
    yield Buffer.from(head);
    await gate;
    yield Buffer.from(tail);
    state.ended = true;
  }
  return { state, source: source() };
}

/** Reads an async iterable to its end. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
