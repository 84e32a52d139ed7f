import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { CatFilePool } from './cat-file-pool.ts';
import { runGit } from './command.ts';
import { type RepoHandle, RepoPaths } from './repo-paths.ts';
import { initBare } from './repository.ts';

/**
 * Helpers for the tests in src/git: temp directories and commits made with `fast-import`, one
 * git process per commit batch. Not used by production code.
 */

export interface TempDir {
  readonly path: string;
  remove(): Promise<void>;
}

export async function makeTempDir(prefix = 'kiln-git-'): Promise<TempDir> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { path: dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface TestRepo {
  readonly tmp: TempDir;
  readonly repo: RepoHandle;
}

/**
 * A temp directory holding one empty bare repository as Kiln makes them (default branch `main`).
 *
 * @example
 *   ({ tmp, repo } = await makeTestRepo());
 */
export async function makeTestRepo(
  name: { owner: string; name: string } = { owner: 'o', name: 'r' },
): Promise<TestRepo> {
  const tmp = await makeTempDir();
  const paths = new RepoPaths(path.join(tmp.path, 'repos'));
  const repo = paths.resolve(name);
  await initBare(paths, repo, { defaultBranch: 'main' });
  return { tmp, repo };
}

export interface TestCommit {
  /** Branch to move (short name); it continues from its current tip unless `parents` is given. */
  branch: string;
  /** Files to write (string or bytes) or, with null, to delete; other files are kept. */
  files: Record<string, string | Buffer | null>;
  message?: string;
  /** Explicit parents (first one is the base); `[]` makes a root commit. */
  parents?: string[];
  /** Seconds since the epoch, default a fixed 2023 date, so commit ids are reproducible. */
  time?: number;
  author?: string;
}

export const TEST_IDENT = 'Test User <test@example.com>';
const DEFAULT_TIME = 1_700_000_000;

function data(payload: string | Buffer): Buffer[] {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return [Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n')];
}

/**
 * Writes a commit into a bare repository with `git fast-import` and returns its id.
 *
 * @example
 *   const sha = await commitFiles(repo.path, { branch: 'main', files: { 'README.md': '# hi\n' } });
 */
export async function commitFiles(gitDir: string, commit: TestCommit): Promise<string> {
  const ref = `refs/heads/${commit.branch}`;
  const tip = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    gitDir,
    okExitCodes: [0, 1],
  });
  const parents = commit.parents ?? (tip.exitCode === 0 ? [tip.stdout.toString().trim()] : []);
  const time = commit.time ?? DEFAULT_TIME;
  const [first, ...merges] = parents;
  // Without `from`, fast-import starts the branch afresh (it does not read existing refs).
  const parts: Buffer[] = [
    Buffer.from(`commit ${ref}\n`),
    Buffer.from(`author ${commit.author ?? TEST_IDENT} ${time} +0000\n`),
    Buffer.from(`committer ${TEST_IDENT} ${time} +0000\n`),
    ...data(commit.message ?? 'test commit\n'),
    Buffer.from(first ? `from ${first}\n` : ''),
    ...merges.map((merge) => Buffer.from(`merge ${merge}\n`)),
  ];
  for (const [file, content] of Object.entries(commit.files)) {
    if (content === null) parts.push(Buffer.from(`D ${file}\n`));
    else parts.push(Buffer.from(`M 100644 inline ${file}\n`), ...data(content));
  }
  parts.push(Buffer.from('\n'));
  await runGit(['fast-import', '--quiet', '--force'], { gitDir, input: Buffer.concat(parts) });
  const { stdout } = await runGit(['rev-parse', '--verify', ref], { gitDir });
  return stdout.toString('utf8').trim();
}

/** Runs git in a work tree or bare repository with a fixed identity, returning trimmed stdout. */
export async function git(
  args: string[],
  options: {
    cwd?: string;
    gitDir?: string;
    env?: Record<string, string>;
    okExitCodes?: number[];
  } = {},
): Promise<string> {
  const { stdout } = await runGit(args, {
    ...options,
    env: {
      GIT_AUTHOR_NAME: 'Test User',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test User',
      GIT_COMMITTER_EMAIL: 'test@example.com',
      ...options.env,
    },
  });
  return stdout.toString('utf8').trim();
}

/**
 * Command lines of the processes whose working directory is `dir` (Linux /proc), to check that
 * nothing git started there outlives what it was for.
 */
export async function processesIn(dir: string): Promise<string[]> {
  const { readdir, readFile, readlink } = await import('node:fs/promises');
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => undefined);
    if (cwd !== dir) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline) found.push(cmdline.split('\0').join(' ').trim());
  }
  return found;
}

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs `work` with `PATH` set to `emptyDir`, so that no git can start: only git processes already
 * running (a cat-file pool's) can answer. For tests of answers that must not start a process.
 */
export async function withoutGitOnPath<T>(emptyDir: string, work: () => Promise<T>): Promise<T> {
  const path = process.env.PATH;
  process.env.PATH = emptyDir;
  try {
    return await work();
  } finally {
    process.env.PATH = path;
  }
}

/** What {@link useTestRepo} hands each test: fresh for every test, read through getters. */
export interface TestRepoFixture {
  readonly tmp: TempDir;
  readonly repo: RepoHandle;
  /** Only with `{ pool: true }`; closed before the directory is removed. */
  readonly pool: CatFilePool;
}

/**
 * Registers `beforeEach`/`afterEach` hooks that give every test in the file its own empty bare
 * repository (see {@link makeTestRepo}) and, on request, a cat-file pool, and remove them after.
 *
 * @example
 *   const fixture = useTestRepo({ pool: true });
 *   it('…', async () => { await listRefs(fixture.repo); });
 */
export function useTestRepo(options: { pool?: boolean } = {}): TestRepoFixture {
  let current: { tmp: TempDir; repo: RepoHandle; pool?: CatFilePool } | undefined;
  beforeEach(async () => {
    const made = await makeTestRepo();
    current = { ...made, pool: options.pool ? new CatFilePool() : undefined };
  });
  afterEach(async () => {
    const ending = current;
    current = undefined;
    await ending?.pool?.closeAll();
    await ending?.tmp.remove();
  });
  const live = () => {
    if (!current) throw new Error('useTestRepo: read outside a test');
    return current;
  };
  return {
    get tmp() {
      return live().tmp;
    },
    get repo() {
      return live().repo;
    },
    get pool() {
      const { pool } = live();
      if (!pool) throw new Error('useTestRepo: pass { pool: true } to get a pool');
      return pool;
    },
  };
}
