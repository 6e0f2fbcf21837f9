/**
 * Writes log lines through the process logger, then ends as argv[2] says: `exit` (process.exit),
 * `throw` (an uncaught error), `drain` (the event loop empties) or `stay` (keeps running until
 * killed, after writing "logged" to stderr).
 */
import { createLogger } from '../../src/container/logger.ts';

const log = createLogger({ level: 'info' });
for (let i = 1; i <= 3; i++) log.info({ line: i }, 'a line');
// A second logger of the process shares the batched standard output.
createLogger({ level: 'info' }).warn({ line: 4 }, 'another logger');
const how = process.argv[2];
if (how === 'exit') process.exit(3);
if (how === 'throw') throw new Error('uncaught on purpose');
if (how === 'stay') {
  process.stderr.write('logged\n');
  setInterval(() => {}, 1000);
}
