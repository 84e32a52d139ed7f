/**
 * Files on disk: the data directory is 0700 and everything Kiln writes there 0600 after `serve`,
 * `migrate` and `restore` (restore-hostile.test.ts), even over a directory left wider; `kiln
 * doctor` names what was widened since; a dump of a running server leaves its lock behind.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliInstance, runCli, serveThroughLauncher, useCliInstance } from '../support/cli.ts';
import { tarEntries } from '../support/hostile-dump.ts';

let instance: CliInstance;
useCliInstance('kiln-modes-', (made) => {
  instance = made;
});

/** Paths under `dir` (itself included) whose mode lets group or others in, with their modes. */
function widePaths(dir: string): string[] {
  const wide: string[] = [];
  const check = (path: string, name: string) => {
    const mode = lstatSync(path).mode;
    if ((mode & 0o077) !== 0) wide.push(`${name} ${(mode & 0o777).toString(8)}`);
  };
  check(dir, '.');
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
    check(join(dir, entry), entry);
  }
  return wide;
}

const dataDir = () => instance.env.SERVICE_DATA_DIR!;
const sqlite = () => instance.env.SERVICE_DATABASE_URL === undefined;

describe('the data directory', () => {
  it('is made private by migrate, over a directory and files left wider', async () => {
    // As an older Kiln (umask 022) or an operator's tools would have left it.
    mkdirSync(join(dataDir(), 'ci-logs', 'task-1'), { recursive: true, mode: 0o755 });
    chmodSync(dataDir(), 0o755);
    chmodSync(join(dataDir(), 'ci-logs'), 0o775);
    writeFileSync(join(dataDir(), 'ci-logs', 'task-1', 'log'), 'output\n', { mode: 0o644 });
    chmodSync(join(dataDir(), 'ci-logs', 'task-1', 'log'), 0o664);
    const migrate = await runCli(['migrate'], instance.env);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stderr).toMatch(/took group and other access off 4 path\(s\)/);
    expect(widePaths(dataDir())).toEqual([]);
    expect(lstatSync(join(dataDir(), 'ci-logs', 'task-1', 'log')).mode & 0o777).toBe(0o600);
    if (sqlite()) expect(lstatSync(join(dataDir(), 'kiln.db')).mode & 0o777).toBe(0o600);
    // Already private: nothing to say the second time.
    const again = await runCli(['migrate'], instance.env);
    expect(again.stderr).not.toContain('took group');
  });

  it('stays private while serve runs, and a dump taken meanwhile has no lock file', async () => {
    chmodSync(dataDir(), 0o751);
    const { child } = await serveThroughLauncher(process.execPath, {
      ...instance.env,
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      SERVICE_HTTP_HOST: '127.0.0.1',
      SERVICE_HTTP_PORT: '0',
      SERVICE_SSH_PORT: '0',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      if (sqlite()) {
        expect(existsSync(join(dataDir(), 'kiln.pid'))).toBe(true);
        expect(existsSync(join(dataDir(), 'kiln.db-wal'))).toBe(true);
      }
      expect(widePaths(dataDir())).toEqual([]);
      const dumpFile = join(instance.dir, 'running.tar');
      const dump = await runCli(['dump', '-o', dumpFile], instance.env);
      expect(dump.code, dump.stderr).toBe(0);
      const entries = tarEntries(dumpFile);
      expect(entries).toContain('kiln-dump/manifest.json');
      expect(entries.filter((entry) => /kiln\.(pid|db)/.test(entry))).toEqual([]);
      expect(lstatSync(dumpFile).mode & 0o077).toBe(0);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);

  it('is checked by kiln doctor, which names a path widened since', async () => {
    const clean = await runCli(['doctor'], instance.env);
    expect(clean.stdout).not.toContain('lets group or others in');
    chmodSync(join(dataDir(), 'ci-logs', 'task-1', 'log'), 0o644);
    chmodSync(join(dataDir(), 'ci-logs'), 0o755);
    const doctor = await runCli(['doctor'], instance.env);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('problem: ci-logs: mode 0755 lets group or others in');
    expect(doctor.stdout).toContain(
      `problem: ${join('ci-logs', 'task-1', 'log')}: mode 0644 lets group or others in`,
    );
    expect(doctor.stdout).toMatch(/fix: chmod go-rwx \S+ci-logs/);
  });
});
