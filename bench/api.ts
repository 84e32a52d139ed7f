/**
 * REST API figures, each against a real `kiln serve` process on 127.0.0.1 (a child process, so
 * the load generator in this process does not share its event loop):
 *
 * 1. Foundation: `GET /api/v1/version` against a bare Fastify process answering the same body on
 *    the same path (target ≥ 0.8×), once logging each request as Kiln does (so the ratio is the
 *    cost of Kiln's hooks) and once without a logger (their cost and the log's); start to
 *    `listening` on an existing data dir (< 1.5 s); idle RSS after start and after load (≤ 100 MB).
 * 2. `GET /api/v1/repos/{owner}/{name}` against `GET /api/v1/version` on the same server, 32
 *    connections (target ≥ 0.5×), p99 of both.
 * 3. `GET /api/v1/repos` and `GET /api/v1/user/repos` p99 with 10,000 repositories against 10
 *    (target ≤ 1.5×). Both ask for the same page size (`limit=10`), so each answer holds ten
 *    repositories and only the table size differs. The 10,000 rows go straight into the
 *    database and their bare directories are hard-linked copies of one seeded repository.
 *
 *   node bench/api.ts [--seconds 4] [--connections 32] [--rounds 5] [--repos 10000]
 *
 * Runs alternate between the two sides of each comparison and medians are compared. Stops by
 * itself; everything lives in a temporary directory that is removed at the end.
 */
import type { ChildProcess } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RepositoriesTable } from '../src/db/tables.ts';
import {
  alternate,
  children,
  type Load,
  load as loadWith,
  medians,
  rssMb,
  startProcess,
  stopProcess,
} from './_http-load.ts';
import { seedBenchPerson } from './_seed.ts';
import { startFlags } from './_start-flags.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '5' },
    repos: { type: 'string', default: '10000' },
    'bare-server': { type: 'boolean', default: false },
  },
});

/**
 * The baseline: Fastify with no plugins, one route answering what Kiln's `/version` answers,
 * logging each request the way `kiln serve` does by default (pino at `info` on stderr), so the
 * comparison is Kiln's own overhead and not a logging setting; `BARE_LOGGER=off` runs it with no
 * logger at all, reported alongside.
 */
async function bareServer(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { AccessLog } = await import('../src/http/plugins/access-log.ts');
  const quiet = process.env.BARE_LOGGER === 'off';
  // Logging as Kiln does: one line per request, to stderr.
  const server = Fastify({
    logger: quiet ? false : { level: 'info', stream: process.stderr },
    logController: new AccessLog(),
  });
  const body = { version: '1.13.0' };
  server.get('/api/v1/version', async () => body);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('bare server did not bind');
  process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
  // Started with the launcher's preload, so it ends start-up as Kiln does: optimizing from here.
  (await import('../src/start-up.js')).startedUp();
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

const SECONDS = Number(args.seconds);
const load = (
  server: ChildProcess,
  url: string,
  headers: Record<string, string> = {},
  connections = CONNECTIONS,
) => loadWith(server, url, { seconds: SECONDS, connections, headers });
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);
const MANY = Number(args.repos);
const FEW = 10;
const root = mkdtempSync(join(tmpdir(), 'kiln-bench-api-'));
const dataDir = join(root, 'data');

const serveEnv = {
  SERVICE_DATA_DIR: dataDir,
  SERVICE_HTTP_HOST: '127.0.0.1',
  SERVICE_HTTP_PORT: '0',
};

/** Kiln as the `kiln` launcher runs it: with the launcher's node flags. */
const startKiln = () =>
  startProcess(
    [...startFlags(), 'src/main.ts', 'serve', '--config', join(root, 'none.toml')],
    serveEnv,
  );

/** Hard-links every file of a bare repository into a new directory tree. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target);
    else linkSync(source, target);
  }
}

type Seed = { owner: string; ownerId: string; token: string; template: string };

/** One person with a token and one seeded repository, through the real services. */
async function seed(): Promise<Seed> {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(root, 'none.toml'), '');
  const app = await openApp();
  try {
    const { user, token } = await seedBenchPerson(app.services, { fullName: 'Bench' });
    await app.services.repos.create(user, { name: 'r00000', autoInit: true, description: 'seed' });
    const template = app.git.paths.resolve({ owner: 'bench', name: 'r00000' }).path;
    return { owner: 'bench', ownerId: user.id, token, template };
  } finally {
    await app.close();
  }
}

async function openApp() {
  const { createApp } = await import('../src/app.ts');
  const { loadConfig } = await import('../src/config/load.ts');
  return createApp(
    loadConfig({
      file: join(root, 'none.toml'),
      env: { SERVICE_DATA_DIR: dataDir, SERVICE_LOG_LEVEL: 'silent' },
    }),
  );
}

/** Grows the owner's repositories to `count`: rows in batches, directories hard-linked. */
async function grow(seeded: Seed, from: number, count: number): Promise<void> {
  const app = await openApp();
  try {
    const { newId } = await import('../src/lib/ids.ts');
    const now = Date.now();
    const rows: RepositoriesTable[] = [];
    for (let i = from; i < count; i += 1) {
      const name = `r${String(i).padStart(5, '0')}`;
      linkTree(seeded.template, app.git.paths.resolve({ owner: seeded.owner, name }).path);
      rows.push({
        id: newId(),
        owner_id: seeded.ownerId,
        name,
        name_lower: name,
        description: `repository ${i}`,
        private: false,
        parent_id: null,
        pull_counter: 0,
        created_at: now,
        updated_at: now,
      });
    }
    await app.database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) {
        await trx
          .insertInto('repositories')
          .values(rows.slice(i, i + 500))
          .execute();
      }
    });
  } finally {
    await app.close();
  }
}

const fmt = (value: number, digits = 0) => value.toFixed(digits);

/**
 * Figures 1 and 2. Two processes of the same code differ by up to 3 µs a request (where the
 * start happened to put things), so every round starts its own processes and the medians are
 * taken across processes. Each process first serves one discarded run: V8 optimizes the request
 * path during it, on both sides alike.
 */
async function foundation(repoPath: string): Promise<{
  figures: Map<string, Load>;
  rssAfterLoad: number;
}> {
  const seen = new Map<string, Load[]>();
  let rssAfterLoad = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const kiln = await startKiln();
    const bareArgv = [...startFlags(), join(import.meta.dirname, 'api.ts'), '--bare-server'];
    const bare = await startProcess(bareArgv);
    const quiet = await startProcess(bareArgv, { BARE_LOGGER: 'off' });
    const sides = [
      { name: 'bare', child: bare.child, url: `${bare.url}/api/v1/version` },
      { name: 'quiet', child: quiet.child, url: `${quiet.url}/api/v1/version` },
      { name: 'version', child: kiln.child, url: `${kiln.url}/api/v1/version` },
      { name: 'repo', child: kiln.child, url: `${kiln.url}${repoPath}` },
    ];
    for (const side of sides) await load(side.child, side.url);
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const runs = seen.get(side.name) ?? [];
      runs.push(await load(side.child, side.url));
      seen.set(side.name, runs);
    }
    rssAfterLoad = rssMb(kiln.child);
    for (const child of [bare.child, quiet.child, kiln.child]) await stopProcess(child);
  }
  const figures = medians(seen);
  for (const [name, { errors }] of figures) {
    if (errors > 0) throw new Error(`${name}: ${errors} failed requests`);
  }
  return { figures, rssAfterLoad };
}

async function lists(server: ChildProcess, url: string, token: string): Promise<Map<string, Load>> {
  const auth = { authorization: `token ${token}` };
  // Warm-up runs (discarded): first-use schema compilation and the JIT, on both sides alike.
  await load(server, `${url}/api/v1/repos?limit=10`, auth, 8);
  await load(server, `${url}/api/v1/user/repos?limit=10`, auth, 8);
  const result = await alternate(ROUNDS, [
    { name: 'repos', run: () => load(server, `${url}/api/v1/repos?limit=10`, auth, 8) },
    { name: 'user/repos', run: () => load(server, `${url}/api/v1/user/repos?limit=10`, auth, 8) },
  ]);
  for (const [name, figures] of result) {
    if (figures.errors > 0) throw new Error(`${name}: ${figures.errors} failed requests`);
  }
  return result;
}

async function main(): Promise<void> {
  try {
    process.stdout.write(`kiln bench/api: ${SECONDS}s runs, ${ROUNDS} rounds, median\n`);
    const seeded = await seed();
    await grow(seeded, 1, FEW);

    // 1 and 2 on the small data dir.
    const { figures, rssAfterLoad } = await foundation(`/api/v1/repos/${seeded.owner}/r00001`);
    const get = (name: string) => figures.get(name) ?? { rps: 0, p99: 0, errors: 1, cpuUs: 0 };
    // 3, first side: a fresh process, warmed up the same way as the one with 10,000 below.
    const small = await startKiln();
    const few = await lists(small.child, small.url, seeded.token);
    await stopProcess(small.child);

    // 3, second side: the same lists with 10,000 repositories; start-up and idle RSS here.
    const growStart = performance.now();
    await grow(seeded, FEW, MANY);
    const growMs = performance.now() - growStart;
    const starts: number[] = [];
    const startCpus: number[] = [];
    // Resident memory moves by a few megabytes from one start to the next (what the start
    // happened to touch), so it is sampled after every start and the median judged.
    const idleRss: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const run = await startKiln();
      starts.push(run.startMs);
      startCpus.push(run.startCpuMs);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      idleRss.push(rssMb(run.child));
      if (i === 2) {
        const many = await lists(run.child, run.url, seeded.token);
        report({ get, few, many, starts, startCpus, idleRss, rssAfterLoad, growMs });
      }
      await stopProcess(run.child);
    }
  } finally {
    for (const child of children) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  }
}

function report(figures: {
  get: (name: string) => Load;
  few: Map<string, Load>;
  many: Map<string, Load>;
  starts: number[];
  startCpus: number[];
  idleRss: number[];
  rssAfterLoad: number;
  growMs: number;
}): void {
  const { get } = figures;
  const rate = (name: string) =>
    `${fmt(get(name).rps).padStart(6)} req/s  p99 ${String(get(name).p99).padStart(3)} ms  ${fmt(get(name).cpuUs).padStart(4)} µs CPU/request`;
  const ratio = (a: string, b: string) =>
    `${fmt(get(a).rps / get(b).rps, 2)} by req/s, ${fmt(get(b).cpuUs / get(a).cpuUs, 2)} by CPU/request`;
  const lines = [
    '',
    `foundation (${CONNECTIONS} connections)`,
    `  bare Fastify /api/v1/version  ${rate('bare')}`,
    `  kiln /api/v1/version          ${rate('version')}`,
    `  bare Fastify, no logger       ${rate('quiet')}`,
    `  kiln / bare                   ${ratio('version', 'bare')}  (target >= 0.80)`,
    `  kiln / bare without logger    ${ratio('version', 'quiet')}`,
    `  start to listening, ${MANY} repos: ${figures.starts.map((ms) => fmt(ms)).join(', ')} ms wall (median ${fmt(median(figures.starts))}), ${figures.startCpus.map((ms) => fmt(ms)).join(', ')} ms CPU  (target < 1500)`,
    `  idle RSS 3 s after start      ${figures.idleRss.map((mb) => fmt(mb, 1)).join(', ')} MB (median ${fmt(median(figures.idleRss), 1)})  (target <= 100)`,
    `  RSS after the load runs       ${fmt(figures.rssAfterLoad, 1)} MB`,
    '',
    `repository (${CONNECTIONS} connections)`,
    `  GET /repos/{owner}/{name}     ${rate('repo')}`,
    `  repo / version                ${ratio('repo', 'version')}  (target >= 0.50)`,
    '',
    `lists, limit=10, 8 connections (${MANY} rows and directories made in ${fmt(figures.growMs)} ms)`,
  ];
  for (const name of ['repos', 'user/repos']) {
    const few = figures.few.get(name);
    const many = figures.many.get(name);
    if (!few || !many) continue;
    lines.push(
      `  GET /${name.padEnd(11)} p99 ${FEW} repos ${few.p99} ms, ${MANY} repos ${many.p99} ms: ${fmt(many.p99 / Math.max(few.p99, 1), 2)}  (target <= 1.50); CPU/request ${fmt(few.cpuUs)} → ${fmt(many.cpuUs)} µs: ${fmt(many.cpuUs / few.cpuUs, 2)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  const figuresLine = figuresOf(figures);
  // The last line is for `npm run bench` (bench/run.ts), which writes docs/performance.md.
  process.stdout.write(`${JSON.stringify({ figures: figuresLine })}\n`);
  if (figuresLine.some((figure) => !figure.pass)) process.exitCode = 1;
}

type Figure = { name: string; target: string; measured: number; unit: string; pass: boolean };

function figuresOf(figures: Parameters<typeof report>[0]): Figure[] {
  const { get } = figures;
  const round = (value: number) => Math.round(value * 100) / 100;
  const atLeast = (name: string, measured: number, target: number): Figure => ({
    name,
    target: `≥ ${target}`,
    measured: round(measured),
    unit: 'ratio',
    pass: measured >= target,
  });
  const atMost = (name: string, measured: number, target: number, unit = 'ratio'): Figure => ({
    name,
    target: `≤ ${target}${unit === 'ratio' ? '' : ` ${unit}`}`,
    measured: round(measured),
    unit,
    pass: measured <= target,
  });
  const listRatio = (name: string) => {
    const few = figures.few.get(name)?.p99 ?? 0;
    const many = figures.many.get(name)?.p99 ?? 0;
    return many / Math.max(few, 1);
  };
  return [
    atLeast(
      'GET /api/v1/version ÷ bare Fastify (same logger), server CPU per request',
      get('bare').cpuUs / get('version').cpuUs,
      0.8,
    ),
    atLeast(
      'GET /api/v1/version ÷ bare Fastify (same logger), req/s (wall clock)',
      get('version').rps / get('bare').rps,
      0.8,
    ),
    // Shown for contrast, not a target: one log line written to stderr costs about as much as
    // the rest of the request, so against a server that logs nothing Kiln measures about 0.5.
    {
      name: 'GET /api/v1/version ÷ bare Fastify without a logger, server CPU per request (contrast)',
      target: 'shown',
      measured: round(get('quiet').cpuUs / get('version').cpuUs),
      unit: 'ratio',
      pass: true,
    },
    atMost(
      `start to listening, ${MANY} repositories, median wall clock`,
      median(figures.starts),
      1500,
      'ms',
    ),
    atMost(
      `start to listening, ${MANY} repositories, median CPU`,
      median(figures.startCpus),
      1500,
      'ms',
    ),
    atMost('RSS 3 s after listening, idle, median of 3 starts', median(figures.idleRss), 100, 'MB'),
    atLeast(
      'GET /api/v1/repos/{owner}/{name} ÷ GET /api/v1/version, req/s, 32 connections',
      get('repo').rps / get('version').rps,
      0.5,
    ),
    atLeast(
      'GET /api/v1/repos/{owner}/{name} ÷ GET /api/v1/version, server CPU per request',
      get('version').cpuUs / get('repo').cpuUs,
      0.5,
    ),
    atMost(
      `GET /api/v1/repos?limit=10 p99, ${MANY} ÷ ${FEW} repositories`,
      listRatio('repos'),
      1.5,
    ),
    atMost(
      `GET /api/v1/user/repos?limit=10 p99, ${MANY} ÷ ${FEW} repositories`,
      listRatio('user/repos'),
      1.5,
    ),
  ];
}

if (args['bare-server']) {
  await bareServer();
} else {
  await main();
}
