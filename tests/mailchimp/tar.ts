/**
 * A minimal POSIX ustar writer, gzipped: enough for the batch results archive (one folder, small JSON
 * files). The tests read it with the system's `tar`, so a malformed header would fail them.
 */
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

export interface TarEntry {
  name: string;
  /** Absent for a folder. */
  content?: Buffer;
}

/** The entries as a `.tar.gz`. */
export function gzippedTar(entries: readonly TarEntry[], mtime = new Date()): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const content = entry.content ?? Buffer.alloc(0);
    blocks.push(header(entry, content.length, mtime));
    if (content.length > 0) {
      blocks.push(content, Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK));
    }
  }
  blocks.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(blocks));
}

function header(entry: TarEntry, size: number, mtime: Date): Buffer {
  if (Buffer.byteLength(entry.name) > 100) throw new Error(`tar entry name too long: ${entry.name}`);
  const block = Buffer.alloc(BLOCK);
  const folder = entry.content === undefined;
  block.write(entry.name, 0, 100, 'utf8');
  block.write(octal(folder ? 0o755 : 0o644, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 'ascii');
  block.write(' '.repeat(8), 148, 'ascii');
  block.write(folder ? '5' : '0', 156, 'ascii');
  block.write('ustar\u000000', 257, 'ascii');
  const checksum = block.reduce((sum, byte) => sum + byte, 0);
  block.write(`${checksum.toString(8).padStart(6, '0')}\u0000 `, 148, 'ascii');
  return block;
}

/** A zero-padded octal field of `width` bytes, NUL-terminated. */
function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\u0000`;
}
