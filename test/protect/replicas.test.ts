/**
 * The pass is stateless: a second Kiln process (`node src/main.ts serve`, its own database)
 * sharing the captcha secret accepts a pass the first one issued, and the other way round.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import {
  captchaEnv,
  type FakeCaptcha,
  inOneWindow,
  SMALL_BUDGETS,
  solveChallenge,
  startFakeCaptcha,
  statuses,
} from './support.ts';

type Replica = { url: string; child: ChildProcess; dataDir: string };

async function startReplica(env: Record<string, string>): Promise<Replica> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-replica-'));
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      SERVICE_DATA_DIR: join(dataDir, 'data'),
      SERVICE_HTTP_HOST: '127.0.0.1',
      SERVICE_HTTP_PORT: '0',
      SERVICE_SSH_PORT: '0',
      SERVICE_LOG_LEVEL: 'silent',
      ...env,
    },
    cwd: dataDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`replica did not start: ${stderr}`)), 30_000);
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica exited with ${code}: ${stderr}`));
    });
  });
  return { url, child, dataDir };
}

async function stopReplica(replica: Replica | undefined): Promise<void> {
  if (!replica) return;
  if (replica.child.exitCode === null) {
    const exited = new Promise((resolve) => replica.child.once('exit', resolve));
    replica.child.kill('SIGTERM');
    await exited;
  }
  rmSync(replica.dataDir, { recursive: true, force: true });
}

async function solve(base: string): Promise<string> {
  const { response, pass } = await solveChallenge(base);
  expect(response.status).toBe(303);
  return pass;
}

let fake: FakeCaptcha;
let first: TestServer;
let second: Replica;
let stranger: Replica;
beforeAll(async () => {
  fake = await startFakeCaptcha();
  first = await startTestServer({ ...SMALL_BUDGETS, ...captchaEnv(fake.url) });
  [second, stranger] = await Promise.all([
    startReplica({ ...SMALL_BUDGETS, ...captchaEnv(fake.url) }),
    startReplica({ ...SMALL_BUDGETS, ...captchaEnv(fake.url, 'a different secret') }),
  ]);
}, 60_000);
afterAll(async () => {
  await stopReplica(second);
  await stopReplica(stranger);
  await first?.close();
  await fake?.close();
});

describe('two processes sharing the captcha secret', () => {
  it("accept each other's pass", async () => {
    const fromFirst = await solve(first.url);
    const fromSecond = await solve(second.url);
    await inOneWindow(async () => {
      const cookie = (pass: string) => ({ headers: { cookie: `service_human=${pass}` } });
      expect(await statuses(second.url, '/search', 5, cookie(fromFirst))).toEqual(
        Array(5).fill(200),
      );
      expect(await statuses(first.url, '/search', 5, cookie(fromSecond))).toEqual(
        Array(5).fill(200),
      );
    });
  });

  it('a process with another secret treats the pass as none', async () => {
    const pass = await solve(first.url);
    await inOneWindow(async () => {
      const cookie = { headers: { cookie: `service_human=${pass}` } };
      expect(await statuses(stranger.url, '/search', 4, cookie)).toEqual([200, 200, 200, 303]);
    });
  });
});
