/**
 * Whether wrong-password sign-ins slow the rest of the server down. A `kiln serve` process (as
 * `npm start` starts it) answers an unrelated page (`GET /api/v1/version`) one request at a
 * time, idle and while 64 concurrent loops post wrong passwords to `POST /login` (for names no
 * account has, which cost the same scrypt hash as real ones). Throttling is raised out of the
 * way so that every attempt is hashed. Idle and flooded runs alternate; the figure is the median
 * over rounds of p99 under the flood ÷ p99 idle, which holds only if hashing runs off the main
 * thread (`crypto.scrypt` on libuv's pool).
 *
 *   node bench/login-flood.ts [--rounds 3] [--requests 300] [--concurrency 64]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEnv } from './_start-flags.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '64' },
  },
});
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const TARGET = 3;

const dataDir = mkdtempSync(join(tmpdir(), 'kiln-bench-login-'));
const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
  cwd: join(import.meta.dirname, '..'),
  env: {
    ...process.env,
    ...startEnv(),
    SERVICE_DATA_DIR: dataDir,
    SERVICE_HTTP_PORT: '0',
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_AUTH_LOGIN_ACCOUNT_LIMIT: '1000',
    SERVICE_AUTH_LOGIN_ADDRESS_LIMIT: '100000',
  },
  stdio: ['ignore', 'pipe', 'ignore'],
});
const base = await new Promise<string>((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    const match = /listening on (http:\/\/\S+)/.exec(out);
    if (match?.[1]) resolve(match[1]);
  });
  child.once('exit', (code) => reject(new Error(`kiln exited with ${code}`)));
});

/** p99 in ms of REQUESTS sequential GETs of the unrelated page. */
async function p99(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(`${base}/api/v1/version`);
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)] ?? 0;
}

/** A signed-out form token and its cookie, reused by every wrong sign-in. */
async function formToken(): Promise<{ cookie: string; token: string }> {
  const response = await fetch(`${base}/login`);
  const cookie = (response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const token = /name="_csrf" value="([0-9a-f]{32})"/.exec(await response.text())?.[1] ?? '';
  return { cookie, token };
}

let attempts = 0;
/** Runs `measure` while CONCURRENCY loops post wrong passwords; counts the attempts answered 401. */
async function underFlood<T>(measure: () => Promise<T>): Promise<{ value: T; wrong: number }> {
  const { cookie, token } = await formToken();
  let running = true;
  let wrong = 0;
  const loop = async () => {
    while (running) {
      attempts += 1;
      const body = new URLSearchParams({
        _csrf: token,
        login: `nobody-${attempts}`,
        password: 'wrong',
      });
      const response = await fetch(`${base}/login`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
      await response.arrayBuffer();
      if (response.status === 401) wrong += 1;
    }
  };
  const loops = Array.from({ length: CONCURRENCY }, loop);
  // Let the flood fill libuv's pool before measuring.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const value = await measure();
  running = false;
  await Promise.all(loops);
  return { value, wrong };
}

try {
  await p99(); // warm-up
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const idle = await p99();
    const flood = await underFlood(p99);
    ratios.push(flood.value / idle);
    console.log(
      `round ${round + 1}: p99 idle ${idle.toFixed(2)} ms, under ${CONCURRENCY} wrong sign-ins ${flood.value.toFixed(2)} ms (${flood.wrong} answered 401), ratio ${(flood.value / idle).toFixed(2)}`,
    );
  }
  const measured = Number(median(ratios).toFixed(2));
  console.log(
    JSON.stringify({
      figures: [
        {
          name: `p99 of \`GET /api/v1/version\` under ${CONCURRENCY} concurrent wrong-password sign-ins ÷ idle, median of ${ROUNDS} rounds`,
          target: `≤ ${TARGET}`,
          measured,
          unit: '×',
          pass: measured <= TARGET,
        },
      ],
    }),
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
