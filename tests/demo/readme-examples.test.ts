/**
 * The README's `mailvet verify` example, run as it is written: the block is read from README.md
 * (its export line, its command and the lines it shows), the command is run as a child process in
 * the demo's mail world (scripts/demo/world.ts, what `npm run demo` starts) with the variables the
 * export line names, and its output must be the README's line for line. The lines carry nothing
 * that varies between runs (no duration, no port), so nothing is normalised: a change in a verdict,
 * a score or the line's format fails here until the README shows it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CLI_EXAMPLE } from '../../scripts/demo/addresses.ts';
import { startDemoWorld, worldEnvironment } from '../../scripts/demo/world.ts';
import type { MailWorld } from '../mailworld/mail-world.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** The README's example: what it exports, the command's arguments and the lines it prints. */
interface VerifyExample {
  exported: string[];
  args: string[];
  lines: string[];
}

/**
 * The first shell block of README.md with a `$ ./bin/mailvet verify` command followed by its
 * output: the command (its `\` continuations joined), the lines after it up to the first blank or
 * `$` line, and the names set by the block's `$ export` line.
 */
function verifyExample(readme: string): VerifyExample {
  for (const [, body] of readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    const lines = body!.split('\n');
    const start = lines.findIndex((line) => line.startsWith('$ ./bin/mailvet verify '));
    if (start === -1) continue;
    let end = start;
    let command = lines[start]!.slice('$ '.length);
    while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${lines[++end]!.trim()}`;
    const output: string[] = [];
    for (const line of lines.slice(end + 1)) {
      if (line === '' || line.startsWith('$')) break;
      output.push(line);
    }
    if (output.length === 0) continue;
    const exportLine = lines.slice(0, start).find((line) => line.startsWith('$ export '));
    const exported = (exportLine ?? '')
      .slice('$ export '.length)
      .split(/\s+/)
      .filter((pair) => pair !== '')
      .map((pair) => pair.split('=')[0]!);
    const [, ...args] = command.split(/\s+/).filter((word) => word !== '');
    return { exported, args: args as string[], lines: output };
  }
  throw new Error('README.md has no `$ ./bin/mailvet verify` example with its output');
}

let world: MailWorld;
let example: VerifyExample;

before(async () => {
  example = verifyExample(await readFile(new URL('README.md', `file://${ROOT}`), 'utf8'));
  world = await startDemoWorld();
});

after(async () => {
  await world?.close();
});

test("the README's verify example names the variables that point the command line at the demo's world", () => {
  assert.deepEqual(example.exported.sort(), Object.keys(worldEnvironment(world)).sort());
  // The very command `npm run demo` prints for the newcomer to paste.
  assert.deepEqual(example.args, ['verify', ...CLI_EXAMPLE]);
});

test("the README's verify example prints, line for line, what the command prints in the demo's world", async () => {
  const { stdout } = await run(process.execPath, ['bin/mailvet', ...example.args], {
    cwd: ROOT,
    env: { ...process.env, ...worldEnvironment(world) },
    timeout: 120_000,
  });
  assert.deepEqual(stdout.trimEnd().split('\n'), example.lines);
});
