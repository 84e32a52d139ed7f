/**
 * `kiln doctor` and the serve lock: a lock whose process is gone (a crash, or a data directory
 * copied from a host where a server ran) is reported with the fix; the lock of a server that runs
 * is not a problem, and a copy restored from a dump starts beside its running source.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Instance, prepareInstance, startServerProcess } from '../git/server-process.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let instance: Instance;
const databases: TestDatabase[] = [];
beforeAll(async () => {
  instance = await prepareInstance('kiln-doctor-lock-', 'keeper');
}, 60_000);
afterAll(async () => {
  for (const database of databases) await database.drop();
  await instance?.dispose();
});

const lockFile = () => path.join(instance.dataDir, 'kiln.pid');

describe('kiln doctor and the serve lock', () => {
  it('reports a lock left by a process that is gone, with the fix', async () => {
    const gone = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
    writeFileSync(lockFile(), `${gone}\n`);
    const doctor = await runCli(['doctor'], instance.env);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      `problem: ${lockFile()}: stale serve lock: process ${gone} is not running`,
    );
    expect(doctor.stdout).toContain(`fix: rm ${lockFile()}`);
    rmSync(lockFile());
    expect((await runCli(['doctor'], instance.env)).stdout).not.toContain('serve lock');
  });

  it('says nothing of the lock of a running server, whose restored copy starts beside it', async () => {
    const server = await startServerProcess(instance.env, { cwd: instance.root });
    try {
      const doctor = await runCli(['doctor'], instance.env);
      expect(doctor.stdout).not.toContain('serve lock');
      const dumpFile = path.join(instance.root, 'beside.tar');
      expect((await runCli(['dump', '--output', dumpFile], instance.env)).code).toBe(0);
      const database = await createTestDatabase();
      databases.push(database);
      const copy = {
        ...instance.env,
        SERVICE_DATA_DIR: path.join(instance.root, 'copy'),
        ...(database.url ? { SERVICE_DATABASE_URL: database.url } : {}),
      };
      expect((await runCli(['restore', '--input', dumpFile], copy)).code).toBe(0);
      const beside = await startServerProcess(copy, { cwd: instance.root });
      try {
        const version = await fetch(`${beside.url}/api/v1/version`);
        expect(version.status).toBe(200);
        const again = await runCli(['doctor'], copy);
        expect(again.stdout).toContain('no problems found');
      } finally {
        await beside.stop();
      }
    } finally {
      await server.stop();
    }
  }, 120_000);
});
