/**
 * The systemd units of deploy/systemd/ (docs/deployment.md): `systemd-analyze verify` finds no
 * problem in any of them (it exits 0 on warnings, so any line it prints fails the test), and
 * `systemd-analyze security --offline` rates every service's exposure as low. The units are
 * copied with ExecStart's node pointing at this Node and /opt/mailvet at this checkout, because
 * verify checks that the command exists. Skipped, with the reason, where systemd-analyze is not
 * installed — under CI=true too: it comes with the `systemd` package, not with Node.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';

const REPO = resolve(import.meta.dirname, '../..');
const UNITS = join(REPO, 'deploy/systemd');
/** The most exposure `systemd-analyze security` may rate a unit (0 best, 10 worst; "OK" is below 2). */
const MOST_EXPOSURE = 2;

const analyze = (args: string[], cwd?: string) =>
  spawnSync('systemd-analyze', args, { encoding: 'utf8', cwd, timeout: 60_000 });
const present = analyze(['--version']);
const skip =
  present.error !== undefined
    ? `systemd-analyze is not installed (apt-get install systemd): the units of deploy/systemd are not checked${process.env.CI === 'true' ? ' (under CI too: it is a system tool, not an npm package)' : ''}`
    : false;

const unitNames = readdirSync(UNITS).filter((name) => /\.(service|timer)$/.test(name));
const scratch = mkdtempSync(join(tmpdir(), 'mailvet-units-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
for (const name of unitNames) {
  const text = readFileSync(join(UNITS, name), 'utf8')
    .replaceAll('/usr/bin/node', process.execPath)
    .replaceAll('/opt/mailvet', REPO);
  writeFileSync(join(scratch, name), text);
}

describe('deploy/systemd units', () => {
  test('there are units for serve, the scale-out API and worker, and the nightly backup', () => {
    assert.deepEqual(unitNames.sort(), [
      'mailvet-backup.service',
      'mailvet-backup.timer',
      'mailvet-serve@.service',
      'mailvet-worker@.service',
      'mailvet.service',
    ]);
    const commands = unitNames
      .filter((name) => name.endsWith('.service'))
      .map((name) => /^ExecStart=.*$/m.exec(readFileSync(join(UNITS, name), 'utf8'))?.[0]);
    for (const command of ['serve', 'serve --no-worker', 'worker', 'backup --force --out'])
      assert.ok(
        commands.some((line) => line?.includes(`/opt/mailvet/bin/mailvet ${command}`)),
        `a unit runs mailvet ${command}`,
      );
  });

  test('systemd-analyze verify prints nothing and exits 0', { skip }, () => {
    const verified = analyze(['verify', '--man=no', ...unitNames], scratch);
    assert.equal(verified.status, 0, verified.stderr);
    const about = `${verified.stdout}${verified.stderr}`
      .split('\n')
      .filter((line) => line.trim() !== '' && unitNames.some((name) => line.includes(name)));
    assert.deepEqual(about, [], 'no warning about our units');
  });

  test('systemd-analyze security rates every service as little exposed', { skip }, (t) => {
    const services = unitNames.filter((name) => name.endsWith('.service'));
    for (const name of services) {
      const rated = analyze(['security', '--offline=true', '--no-pager', join(scratch, name)]);
      if (rated.status !== 0 && /offline/.test(rated.stderr)) {
        t.skip(`this systemd-analyze has no --offline (systemd 250 and later): ${rated.stderr.trim()}`);
        return;
      }
      const level = /Overall exposure level for \S+: ([\d.]+)/.exec(rated.stdout);
      assert.ok(level, `${name}: ${rated.stdout.slice(-300)}${rated.stderr}`);
      assert.ok(Number(level[1]) < MOST_EXPOSURE, `${name} exposure ${level[1]}`);
    }
  });

  test('every variable of mailvet.env.example is one the configuration reads', () => {
    const config = readFileSync(join(REPO, 'src/config.ts'), 'utf8');
    const example = readFileSync(join(REPO, 'deploy/mailvet.env.example'), 'utf8');
    const names = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!);
    assert.ok(names.includes('MAILVET_PUBLIC_URL') && names.includes('DATABASE_URL'));
    for (const name of names) assert.match(config, new RegExp(`\\b${name}:`), `${name} is in src/config.ts`);
  });
});
