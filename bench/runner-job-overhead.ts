/**
 * What a typical job costs on the built-in runner beyond its work: a job of a checkout action
 * (a JavaScript action doing what `actions/checkout` does: `git init`, the token as an
 * `Authorization` header in the repository's config, a shallow fetch of the pushed ref, a
 * detached checkout, the header removed again in its post step) and one `run:` step, run by the
 * engine of `kiln runner daemon` in this process, against `git clone --depth 1` of the same
 * repository followed by the same step in bash.
 *
 *   node bench/runner-job-overhead.ts [--files 2000] [--kilobytes 8] [--rounds 7]
 *
 * The repository (`--files` files of `--kilobytes` each, in nested folders) is served to both
 * sides from the same bare repository by `file://`, so git's own transport costs the same on both;
 * the action is fetched once from a local actions source and then comes from the runner's action
 * cache, as on a runner that has run it before. The job's time includes everything the runner
 * does: the task's directories, the action's `action.yml`, a Node process for each of its phases,
 * the step files and the clean-up. The sides alternate; medians are compared.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runJob } from '../src/runner/engine/job.ts';
import type { HostInput, JobSink } from '../src/runner/engine/task-input.ts';
import { ACTION_YML, INDEX_JS } from '../test/runner/checkout-like.ts';
import { median } from './_stats.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '2000' },
    kilobytes: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '7' },
  },
});
const FILES = Number(values.files);
const KILOBYTES = Number(values.kilobytes);
const ROUNDS = Number(values.rounds);
const STEP = 'find . -name "*.txt" | wc -l';

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-job-'));
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@e', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  }).trim();

/** A work tree of FILES text files, pushed into `bare`; answers the commit. */
function seedRepository(bare: string): string {
  const work = join(root, 'seed');
  mkdirSync(work, { recursive: true });
  const line = 'build output that compresses like source text does; ';
  for (let i = 0; i < FILES; i++) {
    const dir = join(work, `module-${i % 40}`, `part-${i % 7}`);
    mkdirSync(dir, { recursive: true });
    const body = `${i} ${line.repeat(Math.ceil((KILOBYTES * 1024) / line.length))}`;
    writeFileSync(join(dir, `file-${i}.txt`), body.slice(0, KILOBYTES * 1024));
  }
  git(work, 'init', '-q', '-b', 'main');
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'seed');
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(work, 'push', '-q', bare, 'main');
  return git(work, 'rev-parse', 'HEAD');
}

/** The checkout action published as `actions/checkout-like@v1` of a local actions source. */
function publishAction(source: string): void {
  const repo = join(source, 'actions', 'checkout-like');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'action.yml'), ACTION_YML);
  writeFileSync(join(repo, 'index.js'), INDEX_JS);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'action');
  git(repo, 'tag', 'v1');
}

const servers = join(root, 'server');
const bare = join(servers, 'alice', 'app');
mkdirSync(join(servers, 'alice'), { recursive: true });
const sha = seedRepository(bare);
const source = join(root, 'actions-source');
publishAction(source);

const host: HostInput = {
  workRoot: join(root, 'work'),
  runnerName: 'bench',
  instance: 'http://127.0.0.1:1',
  hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
  killGraceMs: 1000,
};
const lines: string[] = [];
const sink: JobSink = { line: (l) => lines.push(l), stepStarted: () => {}, stepFinished: () => {} };
const workflow = `jobs:\n  build:\n    steps:\n      - uses: actions/checkout-like@v1\n      - run: ${JSON.stringify(STEP)}\n`;
const task = (id: number) => ({
  id: String(id),
  workflowPayload: workflow,
  context: {
    repository: 'alice/app',
    server_url: `file://${servers}`,
    ref: 'refs/heads/main',
    sha,
    token: 'bench-token',
    gitea_default_actions_url: `file://${source}`,
  },
  secrets: {},
  vars: {},
  needs: {},
});

async function job(id: number): Promise<number> {
  lines.length = 0;
  const started = performance.now();
  const { result } = await runJob(task(id), host, sink, new AbortController().signal);
  const elapsed = performance.now() - started;
  if (result !== 'success') throw new Error(`the job failed:\n${lines.join('\n')}`);
  if (!lines.includes(String(FILES))) throw new Error(`the step did not see the checkout`);
  return elapsed;
}

function cloneAndStep(round: number): number {
  const dir = join(root, `clone-${round}`);
  const started = performance.now();
  const clone = spawnSync('git', ['clone', '-q', '--depth', '1', `file://${bare}`, dir]);
  const step = spawnSync('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', STEP], {
    cwd: dir,
    encoding: 'utf8',
  });
  const elapsed = performance.now() - started;
  if (clone.status !== 0 || step.stdout.trim() !== String(FILES))
    throw new Error('the clone or the step failed');
  rmSync(dir, { recursive: true, force: true });
  return elapsed;
}

// The first job fetches the action into the runner's cache; not counted.
await job(0);
cloneAndStep(0);
const jobs: number[] = [];
const baselines: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  jobs.push(await job(round));
  baselines.push(cloneAndStep(round));
}
rmSync(root, { recursive: true, force: true });
const ratio = median(jobs) / median(baselines);
console.log(
  `${FILES} files of ${KILOBYTES} KB: job ${median(jobs).toFixed(0)} ms, git clone --depth 1 and the step ${median(baselines).toFixed(0)} ms (medians of ${ROUNDS})`,
);
console.log(
  JSON.stringify({
    figures: [
      {
        name: `job of a checkout action and one run: step ÷ git clone --depth 1 and the step alone, ${FILES} files, medians`,
        target: '≤ 1.5',
        measured: Number(ratio.toFixed(2)),
        unit: '',
        pass: ratio <= 1.5,
      },
    ],
  }),
);
