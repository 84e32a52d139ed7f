/**
 * Start-up refusals a supervisor can read: a second `serve` on the same SQLite data directory
 * stops with one line (a lock left by a dead process does not), the other commands still work
 * beside a running server, PostgreSQL replicas are not locked, and a port already in use is
 * named with its option.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Instance, prepareInstance, startServerProcess } from '../git/server-process.ts';
import { runCli } from '../support/cli.ts';

let instance: Instance;
const postgres = () => instance.env.SERVICE_DATABASE_URL !== undefined;

beforeAll(async () => {
  instance = await prepareInstance('kiln-lock-', 'locker');
}, 60_000);
afterAll(async () => {
  await instance?.dispose();
});

function oneLine(text: string): string {
  const lines = text.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(text).not.toMatch(/^\s+at /m);
  return lines[0] ?? '';
}

describe('a second server on the same data directory', () => {
  it('refuses to start on SQLite while the first runs; the CLI keeps working', async () => {
    const first = await startServerProcess(instance.env, { cwd: instance.root });
    try {
      if (postgres()) {
        // Replicas share the repository directory by design: nothing is locked.
        const second = await startServerProcess(instance.env, { cwd: instance.root });
        await second.stop();
        return;
      }
      const second = await runCli(['serve'], instance.env);
      expect(second.code).not.toBe(0);
      expect(oneLine(second.stderr)).toMatch(
        new RegExp(`^kiln: another Kiln server \\(pid ${first.pid}\\) is already serving`),
      );
      const created = await runCli(
        [
          'user',
          'create',
          '--username',
          'beside',
          '--email',
          'b@example.test',
          '--password',
          'pw-beside-1',
        ],
        instance.env,
      );
      expect(created.code).toBe(0);
    } finally {
      await first.stop();
    }
    expect(existsSync(path.join(instance.dataDir, 'kiln.pid'))).toBe(false);
  }, 60_000);

  it('starts over a lock left by a process that is gone', async () => {
    if (postgres()) return; // no lock to leave behind
    const gone = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
    writeFileSync(path.join(instance.dataDir, 'kiln.pid'), `${gone}\n`);
    const server = await startServerProcess(instance.env, { cwd: instance.root });
    await server.stop();
    expect(existsSync(path.join(instance.dataDir, 'kiln.pid'))).toBe(false);
  }, 60_000);
});

describe('a port already in use', () => {
  it('stops start-up with one line naming the port option', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const address = squatter.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const result = await runCli(['serve'], { ...instance.env, SERVICE_HTTP_PORT: String(port) });
      expect(result.code).toBe(1);
      const line = oneLine(result.stderr);
      expect(line).toContain(`port ${port}`);
      expect(line).toContain('service.http.port (SERVICE_HTTP_PORT)');
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    expect(existsSync(path.join(instance.dataDir, 'kiln.pid'))).toBe(false);
  }, 60_000);
});
