/**
 * Web page figures, against Kiln built in this process and listening on 127.0.0.1:
 *
 * 1. The commit page of a commit touching 100 files against `git show --stat` of the same
 *    commit run as a process (target: server time ≤ 3× the git process time). The page reads
 *    the commit through the repository's long-lived cat-file process and spawns one `git diff`.
 * 2. The first history page of a 10,000-commit repository against the same page of a
 *    100-commit repository (target: p99 ≤ 2×): a page asks git for 31 commits and never counts
 *    the whole history.
 *
 *   node bench/web-pages.ts [--iterations 200] [--commits 10000]
 *
 * Requests are sequential (one at a time) and the two sides of each comparison alternate, so
 * both see the same machine. Stops by itself; everything lives in a temporary directory that is
 * removed at the end.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { type App, createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/load.ts';
import type { Repository } from '../src/domain/repos/repo.types.ts';
import type { User } from '../src/domain/users/user.types.ts';
import { buildServer } from '../src/http/server.ts';
import { giveUpAfter } from './_give-up.ts';
import { seedBenchPerson } from './_seed.ts';

const { values: args } = parseArgs({
  options: {
    iterations: { type: 'string', default: '200' },
    commits: { type: 'string', default: '10000' },
  },
});
const ITERATIONS = Number(args.iterations);
const MANY = Number(args.commits);
const FEW = 100;
const FILES = 100;
const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'kiln-bench-web-'));
// Never let a stuck run outlive its purpose.
const done = giveUpAfter('web-pages', 10, root);

const gitEnv = {
  PATH: process.env.PATH,
  HOME: root,
  GIT_CONFIG_NOSYSTEM: '1',
  LC_ALL: 'C',
};

/** Feeds a fast-import stream to git in the bare repository. */
async function fastImport(gitDir: string, stream: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'fast-import', '--quiet'], {
      env: gitEnv,
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import ${code}`))));
    child.stdin.end(stream);
  });
}

function blob(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

function commitHeader(index: number, message: string): string {
  const time = 1_700_000_000 + index * 60;
  return `commit refs/heads/main\nauthor Bench <bench@example.test> ${time} +0000\ncommitter Bench <bench@example.test> ${time} +0000\n${blob(message)}`;
}

/** A linear history of `count` commits, each changing one file (fast-import chains them). */
function history(count: number): string {
  const parts: string[] = [];
  for (let i = 1; i <= count; i++) {
    parts.push(commitHeader(i, `Change ${i}\n`));
    parts.push(`M 100644 inline file-${i % 50}.txt\n${blob(`revision ${i}\n`)}\n`);
  }
  return parts.join('');
}

/** A base commit of 100 files of 60 lines, then one commit changing three lines in each. */
function wideChange(): string {
  const file = (n: number, changed: boolean) =>
    Array.from({ length: 60 }, (_, line) =>
      changed && line % 20 === 5
        ? `line ${line} of file ${n}, changed`
        : `line ${line} of file ${n}`,
    ).join('\n');
  const parts = [commitHeader(1, 'Base\n')];
  for (let n = 0; n < FILES; n++)
    parts.push(`M 100644 inline src/f${n}.txt\n${blob(file(n, false))}`);
  // Within one stream, a second commit on a branch continues from the first.
  parts.push('\n', commitHeader(2, 'Touch every file\n'));
  for (let n = 0; n < FILES; n++)
    parts.push(`M 100644 inline src/f${n}.txt\n${blob(file(n, true))}`);
  parts.push('\n');
  return parts.join('');
}

async function start(): Promise<{ app: App; url: string; close(): Promise<void> }> {
  const file = join(root, 'empty.toml');
  writeFileSync(file, '');
  const config = loadConfig({
    file,
    env: {
      SERVICE_DATA_DIR: join(root, 'data'),
      SERVICE_HTTP_HOST: '127.0.0.1',
      SERVICE_HTTP_PORT: '0',
      SERVICE_LOG_LEVEL: 'silent',
      SERVICE_PROTECT_ENABLED: 'false',
    },
  });
  const app = await createApp(config);
  const server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('server did not bind');
  return {
    app,
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      await server.close();
      await app.close();
    },
  };
}

async function repository(app: App, owner: User, name: string, stream: string) {
  const { repo } = await app.services.repos.create(owner, { name });
  const gitDir = app.services.repos.handle(repo).path;
  await fastImport(gitDir, stream);
  return { repo, gitDir };
}

/** Milliseconds one call takes. */
async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

async function fetchPage(url: string): Promise<void> {
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main(): Promise<void> {
  const kiln = await start();
  try {
    const { user: owner } = await seedBenchPerson(kiln.app.services);
    const pathOf = (repo: Repository) => `${kiln.url}/repos/bench/${repo.name}`;

    const wide = await repository(kiln.app, owner, 'wide', wideChange());
    const { stdout } = await run('git', ['--git-dir', wide.gitDir, 'rev-parse', 'main'], {
      env: gitEnv,
    });
    const sha = stdout.trim();
    const commitPage = `${pathOf(wide.repo)}/commit/${sha}`;
    const gitShow = () =>
      run('git', ['--git-dir', wide.gitDir, 'show', '--stat', '--format=medium', sha], {
        env: gitEnv,
      });

    const seeding = performance.now();
    const few = await repository(kiln.app, owner, 'few', history(FEW));
    const many = await repository(kiln.app, owner, 'many', history(MANY));
    const seedMs = performance.now() - seeding;

    // Warm both sides: the cat-file processes start, the highlighter and the JIT settle.
    for (let i = 0; i < 10; i++) {
      await fetchPage(commitPage);
      await gitShow();
      await fetchPage(`${pathOf(few.repo)}/commits/main`);
      await fetchPage(`${pathOf(many.repo)}/commits/main`);
    }

    const server: number[] = [];
    const git: number[] = [];
    const fewTimes: number[] = [];
    const manyTimes: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      server.push(await timed(() => fetchPage(commitPage)));
      git.push(await timed(gitShow));
      fewTimes.push(await timed(() => fetchPage(`${pathOf(few.repo)}/commits/main`)));
      manyTimes.push(await timed(() => fetchPage(`${pathOf(many.repo)}/commits/main`)));
    }

    const commitRatio = quantile(server, 0.5) / quantile(git, 0.5);
    const historyRatio = quantile(manyTimes, 0.99) / quantile(fewTimes, 0.99);
    const lines = [
      '',
      `commit page, ${FILES} files changed (${ITERATIONS} sequential requests)`,
      `  kiln GET /commit/{sha}         median ${fmt(quantile(server, 0.5))} ms  p99 ${fmt(quantile(server, 0.99))} ms`,
      `  git show --stat (a process)    median ${fmt(quantile(git, 0.5))} ms  p99 ${fmt(quantile(git, 0.99))} ms`,
      `  ratio kiln / git show          ${fmt(commitRatio, 2)}  (target <= 3.00)`,
      '',
      `history page 1 (${ITERATIONS} sequential requests; histories made in ${fmt(seedMs, 0)} ms)`,
      `  ${FEW} commits                     median ${fmt(quantile(fewTimes, 0.5))} ms  p99 ${fmt(quantile(fewTimes, 0.99))} ms`,
      `  ${MANY} commits                   median ${fmt(quantile(manyTimes, 0.5))} ms  p99 ${fmt(quantile(manyTimes, 0.99))} ms`,
      `  ratio p99 many / few           ${fmt(historyRatio, 2)}  (target <= 2.00)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    // Last line: the figures for bench/run.ts.
    process.stdout.write(
      `${JSON.stringify({
        figures: [
          {
            name: `commit page of a commit touching ${FILES} files ÷ \`git show --stat\`, medians`,
            target: '≤ 3',
            measured: Number(commitRatio.toFixed(2)),
            unit: 'ratio',
            pass: commitRatio <= 3,
          },
          {
            name: `first history page, ${MANY} ÷ ${FEW} commits, p99`,
            target: '≤ 2',
            measured: Number(historyRatio.toFixed(2)),
            unit: 'ratio',
            pass: historyRatio <= 2,
          },
        ],
      })}\n`,
    );
    process.exitCode = commitRatio <= 3 && historyRatio <= 2 ? 0 : 1;
  } finally {
    await kiln.close();
    rmSync(root, { recursive: true, force: true });
    done();
  }
}

await main();
