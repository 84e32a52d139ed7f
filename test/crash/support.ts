/**
 * The crash suites' harness: a server process on a deployment that outlives it, an operation
 * started over HTTP and the process SIGKILLed some milliseconds in, a new process on the same
 * data dir and database, and the invariants every restart must find.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { createDeployment, type Deployment, type KilnProcess } from '../replicas/kiln-process.ts';
import type { Factories } from '../support/factories.ts';
import { GitClient } from '../support/git.ts';
import { auth } from '../support/http.ts';
import { useForSuite } from '../support/world.ts';

export type CrashWorld = {
  readonly deployment: Deployment;
  readonly app: App;
  readonly make: Factories;
  readonly git: GitClient;
  readonly owner: User;
  readonly token: string;
  /** The server process now running; replaced by `crashAndRestart`. */
  kiln: KilnProcess;
  api(path: string, init?: { method?: string; body?: unknown }): Promise<ApiResult>;
  dispose(): Promise<void>;
};

export type ApiResult = { status: number; body: unknown };

export async function crashWorld(): Promise<CrashWorld> {
  const deployment = await createDeployment();
  const { app, make } = await deployment.open();
  const git = await GitClient.create();
  const { user: owner, token } = await make.userWithToken();
  const world: CrashWorld = {
    deployment,
    app,
    make,
    git,
    owner,
    token,
    kiln: await deployment.start(),
    async api(apiPath, init = {}) {
      const response = await fetch(`${world.kiln.url}/api/v1${apiPath}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { ...auth.token(token), 'content-type': 'application/json' },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? null : JSON.parse(text) };
    },
    async dispose() {
      await git.dispose();
      await deployment.dispose();
    },
  };
  return world;
}

/** How long `operation` takes when nothing interrupts it, in milliseconds (median of three). */
export async function timeOf(operation: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await operation();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[1] ?? 0;
}

/**
 * Starts `operation`, SIGKILLs the server `delayMs` later, lets any git process the server had
 * started finish on its own (as it would on a real host), and starts a new server on the same
 * state. Resolves to what the client saw: a status, or undefined when the connection died.
 */
export async function crashAndRestart(
  world: CrashWorld,
  operation: () => Promise<ApiResult>,
  delayMs: number,
): Promise<number | undefined> {
  const outcome = operation().then(
    (result) => result.status,
    () => undefined,
  );
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  await world.kiln.kill();
  const status = await outcome;
  await new Promise((resolve) => setTimeout(resolve, 300));
  await transactionsOfTheDeadSettled(world);
  world.kiln = await world.deployment.start();
  return status;
}

/**
 * PostgreSQL keeps serving a killed client's backend until it has read what the client sent
 * before dying, so a COMMIT already on the wire may land after the new server has answered. A
 * real host has the same window; the suites check the state after it, so they wait until no other
 * session of this database is inside a transaction (the test's own pool sits idle between calls).
 */
async function transactionsOfTheDeadSettled(world: CrashWorld): Promise<void> {
  const { database } = world.app;
  if (database.dialect !== 'postgres') return;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await sql<{ open: number }>`
      select count(*)::int as open from pg_stat_activity
      where datname = current_database() and backend_type = 'client backend'
        and pid <> pg_backend_pid() and xact_start is not null`.execute(database.db);
    if ((rows[0]?.open ?? 0) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Kill points spread over an operation that takes `durationMs`: before, inside and after it. */
export function killDelays(durationMs: number): number[] {
  return [0, 0.2, 0.4, 0.6, 0.8, 1.1].map((f) => Math.round(f * durationMs));
}

/** `git fsck` on a bare repository: clean, or the test fails with git's words. */
export async function expectFsckClean(git: GitClient, dir: string): Promise<void> {
  const result = await git.run(['fsck', '--no-progress', '--no-dangling'], { cwd: dir });
  expect(result.code, `git fsck ${dir}:\n${result.stderr}${result.stdout}`).toBe(0);
}

async function refSha(git: GitClient, dir: string, ref: string): Promise<string | undefined> {
  const result = await git.run(['rev-parse', '--verify', '-q', `${ref}^{commit}`], { cwd: dir });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** Whether `ancestor` is reachable from `ref` in the bare repository `dir`. */
export async function reaches(
  git: GitClient,
  dir: string,
  ref: string,
  ancestor: string,
): Promise<boolean> {
  const result = await git.run(['merge-base', '--is-ancestor', ancestor, ref], { cwd: dir });
  return result.code === 0;
}

export { refSha };

/**
 * The invariants of a restarted deployment, whatever the moment of the crash:
 * every repository row has a repository directory whose `git fsck` is clean; every release names
 * a tag that exists; every merged pull's merge commit is in its base branch; and no directory
 * sits in the repository tree without a row except debris the next creation of that name
 * clears (checked by the suites that create repositories).
 */
export async function expectConsistent(world: CrashWorld): Promise<{ orphans: string[] }> {
  const { app, git } = world;
  const db = app.database.db;
  const repos = await db
    .selectFrom('repositories')
    .innerJoin('users', 'users.id', 'repositories.owner_id')
    .select(['repositories.id', 'repositories.name', 'users.handle'])
    .execute();
  const dirOf = (owner: string, name: string) => app.git.paths.resolve({ owner, name }).path;
  const known = new Set<string>();
  for (const repo of repos) {
    const dir = dirOf(repo.handle, repo.name);
    known.add(dir);
    expect(
      await stat(dir).catch(() => undefined),
      `directory of ${repo.handle}/${repo.name}`,
    ).toBeTruthy();
    await expectFsckClean(git, dir);
  }
  const byId = new Map(repos.map((repo) => [repo.id, dirOf(repo.handle, repo.name)]));

  const releases = await db.selectFrom('releases').select(['repo_id', 'tag_name']).execute();
  for (const release of releases) {
    const dir = byId.get(release.repo_id) ?? '';
    expect(
      await refSha(git, dir, `refs/tags/${release.tag_name}`),
      `tag ${release.tag_name}`,
    ).toBeDefined();
  }

  const merged = await db
    .selectFrom('pull_requests')
    .select(['repo_id', 'number', 'base_branch', 'merge_commit_sha'])
    .where('merged', '=', true)
    .execute();
  for (const pull of merged) {
    const dir = byId.get(pull.repo_id) ?? '';
    expect(pull.merge_commit_sha, `merge commit of #${pull.number}`).toBeTruthy();
    expect(
      await reaches(git, dir, `refs/heads/${pull.base_branch}`, pull.merge_commit_sha ?? ''),
      `merge commit of #${pull.number} in ${pull.base_branch}`,
    ).toBe(true);
  }

  const orphans: string[] = [];
  const root = app.git.paths.root;
  for (const owner of await readdir(root).catch(() => [] as string[])) {
    if (owner.startsWith('.')) continue;
    for (const entry of await readdir(path.join(root, owner))) {
      const dir = path.join(root, owner, entry);
      if (!known.has(dir)) orphans.push(dir);
    }
  }
  return { orphans };
}

/** The suite's crash world, handed to `ready` once it runs and disposed after the last test. */
export function useCrashWorld(ready: (world: CrashWorld) => void | Promise<void>): void {
  useForSuite(crashWorld, (world) => world.dispose(), ready, 60_000);
}
