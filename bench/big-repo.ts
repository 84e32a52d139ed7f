/**
 * Pages of a big repository: 200,000 commits, 50,000 files, against git on the same repository.
 *
 * 1. One `git fast-import` stream, written from this process into git's stdin: a first commit
 *    of `--files` files spread over a tree eight levels deep (`src/d1/d0/d3/…/file-N.txt`),
 *    then `--commits` − 1 commits each changing one or two files; every HOT_EVERY-th commit
 *    changes a file in one deep directory, the path of the path-history figure.
 * 2. Kiln's own housekeeping (`maintainRepository`, what a push triggers) packs it with a
 *    multi-pack index and bitmap and writes the split commit-graph with changed-path filters.
 * 3. Kiln in this process on 127.0.0.1 (SQLite, bot protection off) serves each page; the same
 *    page's data is produced by one git command as a process, started from a thread at the
 *    niceness Kiln gives its own git (bench/_nice-git.ts); the two alternate, `--runs` times,
 *    and the medians of wall time are compared.
 *
 *   node bench/big-repo.ts [--commits 200000] [--files 50000] [--runs 15]
 *                          [--keep <dir>] [--from <dir>]
 *
 * `--keep` copies the generated bare repository (before housekeeping) to `<dir>`; `--from`
 * starts from such a copy instead of generating one, to look into a figure without waiting for
 * the import again.
 *
 * Prints a table, then one JSON line (bench/run.ts's contract); exits non-zero when a target is
 * missed. Everything lives in a temporary directory removed at the end; a watchdog ends the run
 * after 10 minutes.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { maintainRepository } from '../src/git/housekeeping.ts';
import { logArgs } from '../src/git/log.ts';
import { giveUpAfter } from './_give-up.ts';
import { startBenchKiln } from './_kiln.ts';
import { niceGit } from './_nice-git.ts';
import { seedBenchPerson } from './_seed.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    commits: { type: 'string', default: '200000' },
    files: { type: 'string', default: '50000' },
    runs: { type: 'string', default: '15' },
    keep: { type: 'string' },
    from: { type: 'string' },
  },
});
const COMMITS = Number(args.commits);
const FILES = Number(args.files);
const RUNS = Number(args.runs);
/** Every this many commits, one changes a file in the hot directory. */
const HOT_EVERY = 400;
/** Directory levels below `src/`: with base-5 names, 5^6 leaf directories. */
const LEVELS = 6;
const run = promisify(execFile);
const copyAll = { recursive: true, force: true } as const;
const root = mkdtempSync(join(tmpdir(), 'kiln-bench-big-'));
const say = (line: string) => process.stderr.write(`big-repo: ${line}\n`);
const done = giveUpAfter('big-repo', 10, root);

const gitEnv = { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' };

/** Where file `n` lives: its base-5 digits name the directories, so leaves hold five files. */
function filePath(n: number): string {
  const dirs: string[] = [];
  let rest = Math.floor(n / 5);
  for (let level = 0; level < LEVELS; level++) {
    dirs.push(`d${rest % 5}`);
    rest = Math.floor(rest / 5);
  }
  return `src/${dirs.join('/')}/file-${n}.txt`;
}

/** The hot files are the five of one leaf directory, chosen away from file 0's. */
const HOT_BASE = 5 * 1234;
const HOT_DIR = filePath(HOT_BASE).replace(/\/[^/]+$/, '');

function data(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

function header(index: number, message: string): string {
  const time = 1_600_000_000 + index * 60;
  const who = `Bench <bench@example.test> ${time} +0000`;
  return `commit refs/heads/main\nauthor ${who}\ncommitter ${who}\n${data(message)}`;
}

/** The stream, a piece at a time, so it never sits whole in memory. */
function* stream(): Generator<string> {
  const first = [header(0, 'Import the tree\n')];
  for (let n = 0; n < FILES; n++)
    first.push(`M 100644 inline ${filePath(n)}\n${data(`file ${n}\n`)}`);
  yield `${first.join('')}\n`;
  let piece: string[] = [];
  for (let i = 1; i < COMMITS; i++) {
    const changed = i % HOT_EVERY === 0 ? [HOT_BASE + ((i / HOT_EVERY) % 5)] : [(i * 7919) % FILES];
    if (i % 3 === 0) changed.push((i * 104_729 + 13) % FILES);
    piece.push(header(i, `Change ${i}\n\nTouches ${changed.length} file(s).\n`));
    for (const n of changed) piece.push(`M 100644 inline ${filePath(n)}\n${data(`rev ${i}\n`)}`);
    piece.push('\n');
    if (piece.length > 4000) {
      yield piece.join('');
      piece = [];
    }
  }
  yield piece.join('');
}

async function fastImport(gitDir: string): Promise<void> {
  const child = spawn('git', ['--git-dir', gitDir, 'fast-import', '--quiet'], {
    env: gitEnv,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import ${code}`))));
  });
  for (const piece of stream()) {
    if (!child.stdin.write(piece))
      await new Promise((resolve) => child.stdin.once('drain', resolve));
  }
  child.stdin.end();
  await exited;
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

async function page(url: string): Promise<void> {
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 300)}`);
}

/** A comparison: one Kiln page against one git command producing the same data. */
type Pair = {
  readonly name: string;
  readonly url: string;
  readonly git: readonly string[];
  readonly baseline: string;
  readonly target: number;
};

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main(): Promise<void> {
  const kiln = await startBenchKiln({
    dataDir: root,
    databaseUrl: undefined,
    env: { SERVICE_PROTECT_ENABLED: 'false' },
  });
  const baseline = niceGit(gitEnv);
  try {
    const services = kiln.app.services;
    const { user: owner } = await seedBenchPerson(services);
    const { repo } = await services.repos.create(owner, { name: 'big' });
    const gitDir = services.repos.handle(repo).path;
    const git = (gitArgs: readonly string[]) =>
      run('git', ['--git-dir', gitDir, ...gitArgs], { env: gitEnv, maxBuffer: 64 << 20 });

    let started = performance.now();
    // Objects and refs only: the configuration and hooks stay Kiln's.
    const copy = (from: string, to: string) => {
      for (const part of ['objects', 'refs']) cpSync(join(from, part), join(to, part), copyAll);
    };
    if (args.from) copy(args.from, gitDir);
    else await fastImport(gitDir);
    const importMs = performance.now() - started;
    if (args.keep) copy(gitDir, args.keep);
    started = performance.now();
    await maintainRepository(services.repos.handle(repo));
    const maintainMs = performance.now() - started;
    say(`imported in ${fmt(importMs / 1000)} s, housekept in ${fmt(maintainMs / 1000)} s`);

    const tip = (await git(['rev-parse', 'main'])).stdout.trim();
    // The path history's arguments as Kiln passes them, traced: git reports Bloom filter
    // statistics only when it consulted the commit-graph's changed-path filters.
    const traced = await run(
      'git',
      ['rev-list', ...(logArgs(tip, { path: HOT_DIR, limit: 31 }) ?? [])],
      {
        env: { ...gitEnv, GIT_DIR: gitDir, GIT_LITERAL_PATHSPECS: '1', GIT_TRACE2_PERF: '1' },
        maxBuffer: 64 << 20,
      },
    );
    const bloom = /statistics:(\{.*\})/.exec(traced.stderr)?.[1] ?? 'none (filters not used)';
    const base = `${kiln.url}/repos/bench/big`;
    const hotFile = filePath(HOT_BASE);
    // The fields a history row shows: id, author, date and title.
    const rowFormat = '--format=%H%x00%an%x00%ae%x00%at%x00%s';
    const pairs: Pair[] = [
      {
        name: 'history page of a deep directory',
        url: `${base}/commits/main/${HOT_DIR}`,
        git: ['log', rowFormat, '-n', '50', 'main', '--', HOT_DIR],
        baseline: 'git log -n 50 -- <dir>',
        target: 1.5,
      },
      {
        name: 'tree page of the root',
        url: `${base}/src/main`,
        git: ['ls-tree', 'main'],
        baseline: 'git ls-tree HEAD',
        target: 2,
      },
      {
        name: 'first history page of the root',
        url: `${base}/commits/main`,
        git: ['log', rowFormat, '-n', '31', 'main'],
        baseline: 'git log -n 31 (cgit-like)',
        target: 1,
      },
      {
        name: 'file page of a deep file',
        url: `${base}/src/main/${hotFile}`,
        git: ['cat-file', '-p', `main:${hotFile}`],
        baseline: 'git cat-file -p HEAD:path',
        target: 2,
      },
      {
        name: 'commit page of the tip',
        url: `${base}/commit/${tip}`,
        git: ['show', '--stat', '--format=medium', tip],
        baseline: 'git show --stat',
        target: 2,
      },
    ];

    // Warm both sides: cat-file processes start, the JIT settles, pages reach the OS cache.
    for (let i = 0; i < 3; i++) {
      for (const pair of pairs) {
        await page(pair.url);
        await baseline.time(['--git-dir', gitDir, ...pair.git]);
      }
    }
    const samples = pairs.map(() => ({ kiln: [] as number[], git: [] as number[] }));
    for (let i = 0; i < RUNS; i++) {
      for (const [index, pair] of pairs.entries()) {
        const sample = samples[index];
        if (!sample) continue;
        sample.kiln.push(await timed(() => page(pair.url)));
        sample.git.push(await baseline.time(['--git-dir', gitDir, ...pair.git]));
      }
    }

    const figures = pairs.map((pair, index) => {
      const sample = samples[index] ?? { kiln: [], git: [] };
      const kilnMs = median(sample.kiln);
      const gitMs = median(sample.git);
      return { pair, kilnMs, gitMs, ratio: kilnMs / gitMs };
    });
    const lines = [
      '',
      `${COMMITS} commits, ${FILES} files; import ${fmt(importMs / 1000)} s, housekeeping ${fmt(maintainMs / 1000)} s; medians of ${RUNS}`,
      `  path history's rev-list, Bloom filter statistics: ${bloom}`,
      `  ${'page'.padEnd(36)} ${'kiln ms'.padStart(8)}  ${'baseline'.padEnd(28)} ${'git ms'.padStart(7)}  ratio (target)`,
      ...figures.map(
        (f) =>
          `  ${f.pair.name.padEnd(36)} ${fmt(f.kilnMs).padStart(8)}  ${f.pair.baseline.padEnd(28)} ${fmt(f.gitMs).padStart(7)}  ${fmt(f.ratio, 2)} (≤ ${f.pair.target})`,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    process.stdout.write(
      `${JSON.stringify({
        figures: figures.map((f) => ({
          name: `${f.pair.name}, ${COMMITS} commits ÷ \`${f.pair.baseline}\`, medians`,
          target: `≤ ${f.pair.target}`,
          measured: Number(f.ratio.toFixed(2)),
          unit: 'ratio',
          pass: f.ratio <= f.pair.target,
        })),
      })}\n`,
    );
    process.exitCode = figures.every((f) => f.ratio <= f.pair.target) ? 0 : 1;
  } finally {
    await baseline.close();
    await kiln.server.close();
    await kiln.app.close();
    rmSync(root, { recursive: true, force: true });
    done();
  }
}

await main();
