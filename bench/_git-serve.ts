/**
 * Shared by the benches that serve git (not a bench itself: bench/run.ts skips `_*.ts`): their
 * command line, a synthetic repository of a given size seeded into Kiln, clones of it at once,
 * and the figures' lines. The reference server is in `_http-backend.ts`, the memory sampling in
 * `_process-memory.ts`.
 */
import { statSync } from 'node:fs';
import { access, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServerProcess } from '../test/git/server-process.ts';
import { type GitClient, importSyntheticHistory, repoUrl } from '../test/support/git.ts';
import { descendants, isGit } from './_process-memory.ts';

export const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A bare repository at `gitDir` holding `commits` commits of random bytes (`megabytes` in all, so
 * nothing compresses away; see `syntheticHistory`), repacked into one pack. Returns the tip and
 * the packs' size in bytes.
 */
export async function syntheticRepository(
  git: GitClient,
  gitDir: string,
  options: { commits: number; megabytes: number },
): Promise<{ tip: string; bytes: number; packs: number }> {
  await git.ok(['init', '-q', '--bare', gitDir]);
  const tip = await importSyntheticHistory(git, gitDir, {
    commits: options.commits,
    bytesPerCommit: Math.round((options.megabytes * MB) / options.commits),
  });
  await git.ok(['--git-dir', gitDir, 'repack', '-a', '-d', '-q'], { timeoutMs: 300_000 });
  const packDir = join(gitDir, 'objects', 'pack');
  const packs = (await readdir(packDir)).filter((f) => f.endsWith('.pack'));
  const bytes = packs.reduce((sum, f) => sum + statSync(join(packDir, f)).size, 0);
  return { tip, bytes, packs: packs.length };
}

/**
 * Waits until Kiln's housekeeping after the push has written its commit-graph and no git runs
 * under Kiln for a second (at most two minutes), so that no round shares the machine with it.
 */
export async function housekeepingDone(pid: number, gitDir: string): Promise<void> {
  const end = Date.now() + 120_000;
  let quiet = 0;
  while (Date.now() < end && quiet < 4) {
    const graph = await Promise.any([
      access(join(gitDir, 'objects', 'info', 'commit-graphs', 'commit-graph-chain')),
      access(join(gitDir, 'objects', 'info', 'commit-graph')),
    ]).then(
      () => true,
      () => false,
    );
    const busy = (await Promise.all((await descendants(pid)).map(isGit))).some(Boolean);
    quiet = graph && !busy ? quiet + 1 : 0;
    await sleep(250);
  }
}

/** What a clone bench is told on its command line. */
export type CloneBenchArgs = {
  readonly rounds: number;
  readonly clones: number;
  readonly megabytes: number;
  readonly commits: number;
};

/** `--rounds`, `--clones`, `--megabytes` (50) and `--commits` (300), with the bench's defaults. */
export function cloneBenchArgs(defaults: { rounds: number; clones?: number }): CloneBenchArgs {
  const option = (fallback: number) => ({ type: 'string', default: String(fallback) }) as const;
  const { values } = parseArgs({
    options: {
      rounds: option(defaults.rounds),
      clones: option(defaults.clones ?? 50),
      megabytes: option(50),
      commits: option(300),
    },
  });
  return {
    rounds: Number(values.rounds),
    clones: Number(values.clones),
    megabytes: Number(values.megabytes),
    commits: Number(values.commits),
  };
}

/**
 * The repository the clones read: a synthetic one made at `source` (`syntheticRepository`),
 * pushed over HTTP into a new repository `served` of `owner` on the running Kiln, returned once
 * Kiln's housekeeping after that push is done. `served` is its bare directory in `dataDir`.
 */
export async function seedServedRepository(
  git: GitClient,
  server: ServerProcess,
  seed: CloneBenchArgs & { token: string; owner: string; source: string; dataDir: string },
): Promise<{ tip: string; bytes: number; packs: number; served: string }> {
  const repository = await syntheticRepository(git, seed.source, seed);
  const created = await fetch(`${server.url}/api/v1/user/repos`, {
    method: 'POST',
    headers: { authorization: `token ${seed.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'served' }),
  });
  if (created.status !== 201) throw new Error(`creating the repository: ${created.status}`);
  const pushUrl = repoUrl(server.url, seed.owner, 'served', { token: seed.token, as: 'password' });
  await git.ok(['--git-dir', seed.source, 'push', '-q', pushUrl, 'main'], { timeoutMs: 300_000 });
  const served = join(seed.dataDir, 'repositories', seed.owner, 'served.git');
  await housekeepingDone(server.pid, served);
  return { ...repository, served };
}

/**
 * Starts `count` bare clones of `url` at once into `root`; the wall ms until the last has
 * finished. Every clone must succeed and end on `tip`; all are removed afterwards.
 */
export async function cloneAtOnce(
  git: GitClient,
  root: string,
  clone: { url: string; tag: string; tip: string; count?: number; env?: Record<string, string> },
): Promise<number> {
  const { tag, tip } = clone;
  const dirs = Array.from({ length: clone.count ?? 1 }, (_, i) => join(root, `${tag}-${i}`));
  const started = performance.now();
  const results = await Promise.all(
    dirs.map((dir) =>
      git.run(['clone', '-q', '--bare', clone.url, dir], {
        cwd: root,
        timeoutMs: 300_000,
        ...(clone.env ? { env: clone.env } : {}),
      }),
    ),
  );
  const ms = performance.now() - started;
  try {
    for (const [i, result] of results.entries()) {
      if (result.code !== 0) throw new Error(`${tag}: clone ${i} failed:\n${result.stderr}`);
      const head = await git.ok(['--git-dir', dirs[i] ?? '', 'rev-parse', 'HEAD']);
      if (head !== tip) throw new Error(`${tag}: clone ${i} ended on ${head}, not ${tip}`);
    }
  } finally {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
  return ms;
}

/** Prints each figure on a line: met or MISSED, its value and its target. */
export function printFigures(
  figures: ReadonlyArray<{
    name: string;
    target: string;
    measured: number;
    unit: string;
    pass: boolean;
  }>,
): void {
  for (const figure of figures) {
    const unit = figure.unit === 'ratio' ? '' : ` ${figure.unit}`;
    process.stdout.write(
      `${figure.pass ? 'met   ' : 'MISSED'} ${figure.name}: ${figure.measured}${unit} (target ${figure.target})\n`,
    );
  }
}
