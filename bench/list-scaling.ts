/**
 * List latency against data size: `GET /api/v1/repos?limit=10` p99 with 10, 100, 1,000 and
 * 10,000 repositories in the instance, and `GET /api/v1/repos/{owner}/{name}/pulls?limit=10` p99
 * in a repository with 10 pulls and one with 10,000. Every answer holds the same ten records,
 * so only the table size differs; the targets are p99 at the largest size ≤ 1.5 × p99 at the
 * smallest.
 *
 * Then the cost of a list against one answer: server CPU per request of `GET /api/v1/repos/search`,
 * `/user/repos` and `/users/{name}/repos` with `limit=10`, each ÷ that of one repository GET, in
 * alternating runs at the smallest size (target ≤ 3). For these the client runs in a worker
 * thread and the server's share is `process.threadCpuUsage()` of the main thread, which runs
 * every request handler, SQLite statement and file read (V8's helper threads are left out), so a
 * list's larger answer costs the client's parsing nothing on the server's side.
 *
 * Kiln runs in this process on 127.0.0.1 (SQLite unless SERVICE_DATABASE_URL names a throwaway
 * PostgreSQL); rows go straight into the database, and repository directories are hard-linked
 * copies of one seeded repository. Requests go over HTTP keep-alive from 4 concurrent loops; sizes
 * are measured in alternating rounds and the median p99 of the rounds is kept.
 *
 *   node bench/list-scaling.ts [--requests 400] [--rounds 3] [--max 10000]
 *
 * Prints a table, then one JSON line `{"figures": [...], "series": [...]}` (see bench/run.ts).
 * Stops by itself; everything lives in a temporary directory that is removed at the end.
 */
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/load.ts';
import type { PullRequestsTable, RepositoriesTable } from '../src/db/tables.ts';
import { buildServer } from '../src/http/server.ts';
import { contentHash } from '../src/lib/content-hash.ts';
import { seedBenchPerson } from './_seed.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '3' },
    max: { type: 'string', default: '10000' },
  },
});
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);
const MAX = Number(args.max);
const SIZES = [10, 100, 1000, 10_000].filter((size) => size <= MAX);
const CONCURRENCY = 4;

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-lists-'));
const configFile = join(root, 'none.toml');
writeFileSync(configFile, '');
const app = await createApp(
  loadConfig({
    file: configFile,
    env: {
      SERVICE_DATA_DIR: join(root, 'data'),
      SERVICE_LOG_LEVEL: 'silent',
      SERVICE_PROTECT_ENABLED: 'false',
      ...(process.env.SERVICE_DATABASE_URL
        ? { SERVICE_DATABASE_URL: process.env.SERVICE_DATABASE_URL }
        : {}),
    },
  }),
);
const server = await buildServer(app);
await server.listen({ host: '127.0.0.1', port: 0 });
const address = server.server.address();
if (address === null || typeof address === 'string') throw new Error('server did not bind');
const base = `http://127.0.0.1:${address.port}`;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const db = app.database.db;

const { user: owner, token } = await seedBenchPerson(app.services, { handle: 'lister' });
const { repo: seed } = await app.services.repos.create(owner, { name: 'seed', autoInit: true });
const seedDir = app.services.repos.handle(seed).path;

/** A copy of `from` at `to` made of hard links: instant, and enough for reading HEAD and refs. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    const source = join(from, entry);
    if (statSync(source).isDirectory()) linkTree(source, join(to, entry));
    else linkSync(source, join(to, entry));
  }
}

let repoCount = 1;
/** Adds repositories (rows and directories) until the instance holds `size`. */
async function growTo(size: number): Promise<void> {
  const rows: RepositoriesTable[] = [];
  const now = Date.now();
  for (; repoCount < size; repoCount++) {
    const name = `repo-${repoCount}`;
    linkTree(seedDir, app.git.paths.resolve({ owner: owner.handle, name }).path);
    rows.push({
      id: crypto.randomUUID(),
      owner_id: owner.id,
      name,
      name_lower: name,
      description: '',
      private: false,
      parent_id: null,
      pull_counter: 0,
      created_at: now + repoCount,
      updated_at: now + repoCount,
    });
  }
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('repositories')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** A repository holding `count` open pulls from `topic` into `main`. */
async function repoWithPulls(name: string, count: number): Promise<string> {
  const { repo } = await app.services.repos.create(owner, { name, autoInit: true });
  const sha = await app.services.pulls.branchTip(repo, 'main');
  const rows: PullRequestsTable[] = [];
  const now = Date.now();
  for (let number = 1; number <= count; number++) {
    rows.push({
      id: crypto.randomUUID(),
      repo_id: repo.id,
      number,
      title: `pull ${number}`,
      body: '',
      body_hash: contentHash(''),
      state: 'open',
      merged: false,
      merged_at: null,
      merge_commit_sha: null,
      merged_by_id: null,
      author_id: owner.id,
      assignee_id: null,
      head_repo_id: repo.id,
      head_branch: `topic-${number}`,
      head_sha: sha ?? '0'.repeat(40),
      base_branch: 'main',
      created_at: now + number,
      updated_at: now + number,
      closed_at: null,
    });
  }
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('pull_requests')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  await db
    .updateTable('repositories')
    .set({ pull_counter: count })
    .where('id', '=', repo.id)
    .execute();
  return `/api/v1/repos/${owner.handle}/${name}/pulls?state=all&limit=10`;
}

function get(path: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${base}${path}`,
      { agent, headers: { authorization: `token ${token}` } },
      (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode !== 200) reject(new Error(`${path}: ${response.statusCode}`));
          else resolve(performance.now() - started);
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** p99 latency in ms of `REQUESTS` requests to `path` from `CONCURRENCY` loops. */
async function p99(path: string): Promise<number> {
  const times: number[] = [];
  let left = REQUESTS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) times.push(await get(path));
    }),
  );
  times.sort((a, b) => a - b);
  return times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? 0;
}

/**
 * The client of the CPU figures: in a worker thread, so the main thread's CPU is the server's.
 * Each message `{ path, requests }` is answered with the number of requests that did not get 200
 * once all are done.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { Agent, request } = require('node:http');
const agent = new Agent({ keepAlive: true, maxSockets: workerData.concurrency });
const get = (path) => new Promise((resolve) => {
  const outgoing = request(workerData.base + path,
    { agent, headers: { authorization: 'token ' + workerData.token } },
    (response) => { response.resume(); response.on('end', () => resolve(response.statusCode === 200 ? 0 : 1)); });
  outgoing.on('error', () => resolve(1));
  outgoing.end();
});
parentPort.on('message', async ({ path, requests }) => {
  let left = requests;
  let failed = 0;
  await Promise.all(Array.from({ length: workerData.concurrency }, async () => {
    while (left-- > 0) failed += await get(path);
  }));
  parentPort.postMessage(failed);
});
`;
const client = new Worker(CLIENT, {
  eval: true,
  workerData: { base, token, concurrency: CONCURRENCY },
});
client.unref();

/** Server CPU (this thread's) per request, in µs, over `REQUESTS` requests to `path`. */
async function cpuPerRequest(path: string): Promise<number> {
  const before = process.threadCpuUsage();
  const failed = await new Promise<number>((resolve) => {
    client.once('message', resolve);
    client.postMessage({ path, requests: REQUESTS });
  });
  const used = process.threadCpuUsage(before);
  if (failed > 0) throw new Error(`${path}: ${failed} requests failed`);
  return (used.user + used.system) / REQUESTS;
}

/** Median CPU per request of each path over alternating rounds (order reversed every round). */
async function alternateCpu(paths: string[]): Promise<number[]> {
  for (const path of paths) await cpuPerRequest(path);
  const rounds: number[][] = paths.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = paths.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) rounds[i]?.push(await cpuPerRequest(paths[i] ?? ''));
  }
  return rounds.map(median);
}

/** Measures `paths` in alternating rounds (order reversed every round); median p99 of each. */
async function alternate(paths: string[]): Promise<number[]> {
  for (const path of paths) await p99(path);
  const rounds: number[][] = paths.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = paths.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) rounds[i]?.push(await p99(paths[i] ?? ''));
  }
  return rounds.map(median);
}

try {
  const repoPath = '/api/v1/repos?limit=10';
  // Warm-up at the smallest size: JIT, statement caches, the cat-file processes.
  for (let i = 0; i < 3; i++) await p99(repoPath);
  await growTo(SIZES[0] ?? 10);
  const lists = [
    '/api/v1/repos/search?limit=10',
    '/api/v1/user/repos?limit=10',
    `/api/v1/users/${owner.handle}/repos?limit=10`,
  ];
  const [oneCpu = 0, ...listCpu] = await alternateCpu([
    `/api/v1/repos/${owner.handle}/${seed.name}`,
    ...lists,
  ]);
  const listRatios = listCpu.map((cpu) => cpu / (oneCpu || 1));
  const repoP99: number[] = [];
  for (const size of SIZES) {
    await growTo(size);
    const [value] = await alternate([repoPath]);
    repoP99.push(value ?? 0);
  }
  const fewPulls = await repoWithPulls('few-pulls', 10);
  const manyPulls = await repoWithPulls('many-pulls', Math.min(10_000, MAX));
  const [few = 0, many = 0] = await alternate([fewPulls, manyPulls]);

  const fmt = (ms: number) => ms.toFixed(1).padStart(7);
  const lines = [
    `engine ${app.database.dialect}; ${REQUESTS} requests × ${ROUNDS} rounds, ${CONCURRENCY} loops`,
  ];
  SIZES.forEach((size, i) => {
    lines.push(
      `GET /api/v1/repos?limit=10, ${String(size).padStart(6)} repositories  p99 ${fmt(repoP99[i] ?? 0)} ms`,
    );
  });
  lines.push(`GET …/pulls?limit=10,           10 pulls         p99 ${fmt(few)} ms`);
  lines.push(
    `GET …/pulls?limit=10,  ${String(Math.min(10_000, MAX)).padStart(6)} pulls         p99 ${fmt(many)} ms`,
  );
  const repoRatio = (repoP99.at(-1) ?? 0) / (repoP99[0] || 1);
  const pullRatio = many / (few || 1);
  lines.push(`ratio repos ${repoRatio.toFixed(2)}, pulls ${pullRatio.toFixed(2)} (targets ≤ 1.5)`);
  lines.push(`server CPU per request: GET /api/v1/repos/{owner}/{name} ${oneCpu.toFixed(0)} µs`);
  lists.forEach((path, i) => {
    lines.push(
      `  ${path} ${(listCpu[i] ?? 0).toFixed(0)} µs: ${(listRatios[i] ?? 0).toFixed(2)} (target ≤ 3)`,
    );
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  const largest = SIZES.at(-1) ?? 0;
  process.stdout.write(
    `${JSON.stringify({
      figures: [
        {
          name: `GET /api/v1/repos p99, ${largest.toLocaleString('en')} ÷ ${SIZES[0]} repositories`,
          target: '≤ 1.5',
          measured: Number(repoRatio.toFixed(2)),
          unit: 'ratio',
          pass: repoRatio <= 1.5,
        },
        {
          name: `GET …/pulls p99, ${Math.min(10_000, MAX).toLocaleString('en')} ÷ 10 pulls`,
          target: '≤ 1.5',
          measured: Number(pullRatio.toFixed(2)),
          unit: 'ratio',
          pass: pullRatio <= 1.5,
        },
        ...lists.map((path, i) => ({
          name: `GET ${path.replace(owner.handle, '{name}')} ÷ GET /api/v1/repos/{owner}/{name}, server CPU per request`,
          target: '≤ 3',
          measured: Number((listRatios[i] ?? 0).toFixed(2)),
          unit: 'ratio',
          pass: (listRatios[i] ?? 0) <= 3,
        })),
      ],
      series: [
        {
          name: 'GET /api/v1/repos?limit=10',
          unit: 'ms',
          points: SIZES.map((size, i) => ({ x: size, y: Number((repoP99[i] ?? 0).toFixed(2)) })),
        },
        {
          name: 'GET …/pulls?limit=10',
          unit: 'ms',
          points: [
            { x: 10, y: Number(few.toFixed(2)) },
            { x: Math.min(10_000, MAX), y: Number(many.toFixed(2)) },
          ],
        },
      ],
    })}\n`,
  );
  process.exitCode = repoRatio <= 1.5 && pullRatio <= 1.5 ? 0 : 1;
} finally {
  agent.destroy();
  await client.terminate();
  await server.close();
  await app.close();
  rmSync(root, { recursive: true, force: true });
}
