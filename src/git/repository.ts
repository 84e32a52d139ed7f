import { appendFile, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Conflict, NotFound } from '../domain/errors.ts';
import { errorCode } from '../lib/thrown.ts';
import { runGit } from './command.ts';
import { writeCreationMarker } from './creation-marker.ts';
import { writeHooks } from './hooks.ts';
import { linkObjectFiles, objectsDir, readAlternates, writeAlternates } from './object-store.ts';
import { branchRef } from './ref-names.ts';
import { readDefaultBranch } from './refs.ts';
import { noteRepositoryChange } from './repo-changes.ts';
import { repositoryExists, requireRepository } from './repo-exists.ts';
import type { RepoHandle, RepoPaths } from './repo-paths.ts';

/**
 * Creating, forking, detaching and deleting bare repositories. Every repository is assembled in
 * a temporary directory under the root and renamed into place, so a crash leaves either nothing
 * or a whole repository; `sweepTempDirs` clears what crashed assemblies leave behind.
 */

export interface InitOptions {
  /** Branch HEAD points at; it need not exist yet. */
  defaultBranch: string;
  /** Have receive-pack check every pushed object (`receive.fsckObjects`). Off by default, as in Gitea. */
  fsckObjects?: boolean;
}

/**
 * Kiln's settings for every repository. Filters and any-sha wants serve partial clones over
 * protocol v0 as well as v2; forced pushes and deletions are allowed (protected branches are the
 * pre-receive hook's job); `refs/pull/` is hidden from receive-pack so that nobody pushes over a
 * pull request's head; ref updates are logged so a rewound branch can be recovered.
 */
function repositoryConfig(options: InitOptions): string {
  return [
    '[uploadpack]',
    '\tallowFilter = true',
    '\tallowAnySHA1InWant = true',
    '[receive]',
    '\tdenyNonFastForwards = false',
    '\tdenyDeletes = false',
    '\thideRefs = refs/pull/',
    `\tfsckObjects = ${options.fsckObjects === true}`,
    '[core]',
    '\tlogAllRefUpdates = true',
    '',
  ].join('\n');
}

async function makeRepository(dir: string, options: InitOptions): Promise<void> {
  branchRef(options.defaultBranch);
  // No template: no sample hooks, no description; Kiln writes what it needs. The branch name was
  // checked and is glued to its option, so it cannot be read as one.
  await runGit(
    ['init', '--bare', '--quiet', '--template=', `--initial-branch=${options.defaultBranch}`, dir],
    {
      cwd: dir,
    },
  );
  await appendFile(path.join(dir, 'config'), repositoryConfig(options));
  await writeHooks(dir);
  await writeCreationMarker(dir);
}

/**
 * Makes `dir` (new, or empty) a repository exactly as `initBare` makes one: Kiln's config and
 * hooks and nothing else, with the creation marker in it until the caller clears it. A restore
 * builds each repository this way and then adds only the archive's objects, refs and HEAD.
 */
export async function initRepositoryIn(dir: string, options: InitOptions): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await makeRepository(dir, options);
}

/** Builds a repository in a fresh temp directory, then renames it to `target`. */
async function assemble(
  paths: RepoPaths,
  target: RepoHandle,
  build: (dir: string) => Promise<void>,
) {
  if (await repositoryExists(target)) {
    throw new Conflict('repository already exists', { details: { repository: target.key } });
  }
  await mkdir(paths.tempRoot, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(paths.tempRoot, 'new-'));
  try {
    await build(dir);
    await mkdir(path.dirname(target.path), { recursive: true, mode: 0o700 });
    await rename(dir, target.path);
    noteRepositoryChange();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const code = errorCode(error);
    if (code === 'ENOTEMPTY' || code === 'EEXIST') {
      throw new Conflict('repository already exists', { details: { repository: target.key } });
    }
    throw error;
  }
}

/**
 * Creates an empty bare repository with Kiln's config and hooks.
 *
 * @example
 *   await initBare(paths, paths.resolve({ owner: 'alice', name: 'tools' }), { defaultBranch: 'main' });
 */
export async function initBare(
  paths: RepoPaths,
  repo: RepoHandle,
  options: InitOptions,
): Promise<void> {
  branchRef(options.defaultBranch);
  await assemble(paths, repo, (dir) => makeRepository(dir, options));
}

/**
 * Removes a repository. It is first renamed out of the way, so it disappears at once even while
 * the files are still being deleted. Forks that borrow its objects must be detached first.
 */
export async function deleteRepository(paths: RepoPaths, repo: RepoHandle): Promise<void> {
  await requireRepository(repo);
  await mkdir(paths.tempRoot, { recursive: true, mode: 0o700 });
  const doomed = await mkdtemp(path.join(paths.tempRoot, 'delete-'));
  try {
    await rename(repo.path, path.join(doomed, 'repo.git'));
    noteRepositoryChange();
  } catch (error) {
    await rm(doomed, { recursive: true, force: true });
    if (errorCode(error) === 'ENOENT') throw new NotFound('repository not found');
    throw error;
  }
  await rm(doomed, { recursive: true, force: true });
}

export interface ForkOptions {
  /**
   * Borrow the parent's objects through `objects/info/alternates` rather than hard-linking the
   * ones it has now. A fork serves any object of the stores it borrows from to whoever may read
   * the fork, by id, including what the parent receives later, so sharing is only for parents
   * anyone may read (docs/architecture.md, "Object isolation").
   */
  readonly shareObjects: boolean;
}

/** Attempts at copying a parent's objects while its own `git gc` may be moving them. */
const LINK_ATTEMPTS = 3;

/**
 * Forks `parent` into `fork` instantly, copying its branches, tags and default branch. With
 * `shareObjects`, the fork borrows the parent's objects through alternates (a relative path, so
 * the root can move), and the parent is set never to prune unreachable objects, since a fork may
 * still reach what the parent dropped. Without, the parent's object files are hard-linked into
 * the fork, which then holds what the parent held at this moment and nothing it receives later;
 * so are those of every store the parent borrows from, and the fork borrows nothing.
 */
export async function createFork(
  paths: RepoPaths,
  parent: RepoHandle,
  fork: RepoHandle,
  options: ForkOptions,
): Promise<void> {
  await requireRepository(parent);
  for (let attempt = 1; ; attempt++) {
    try {
      return await assembleFork(paths, parent, fork, options);
    } catch (error) {
      // A file the parent's `git gc` removed while it was being linked: start over.
      if (errorCode(error) !== 'ENOENT' || attempt === LINK_ATTEMPTS) {
        throw error;
      }
    }
  }
}

async function assembleFork(
  paths: RepoPaths,
  parent: RepoHandle,
  fork: RepoHandle,
  options: ForkOptions,
): Promise<void> {
  const [defaultBranch, refs] = await Promise.all([
    readDefaultBranch(parent),
    runGit(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/'], {
      gitDir: parent.path,
    }),
  ]);
  const updates = refs.stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [sha, ref] = line.split(' ');
      return `create ${ref} ${sha}\n`;
    })
    .join('');
  const parentObjects = objectsDir(parent.path);
  if (options.shareObjects) await keepUnreachableObjects(parent);
  const copied = options.shareObjects ? [] : await storesReachedFrom(parentObjects);
  await assemble(paths, fork, async (dir) => {
    await makeRepository(dir, { defaultBranch: defaultBranch ?? 'main' });
    const objects = objectsDir(dir);
    for (const store of copied) await linkObjectFiles(store, objects);
    // Relative to the assembly directory while the fork is assembled there; relative to its
    // final place once it is about to move.
    if (options.shareObjects) await writeAlternates(objects, [parentObjects]);
    if (updates.length > 0) {
      await runGit(['update-ref', '--stdin', '-m', 'fork'], { gitDir: dir, input: updates });
    }
    if (options.shareObjects) {
      await writeAlternates(objects, [parentObjects], objectsDir(fork.path));
    }
  });
}

/**
 * `objects` and every store it borrows from, directly or through another borrowed store (git
 * follows alternates up to five deep), each once, those that exist.
 */
async function storesReachedFrom(objects: string): Promise<string[]> {
  const found: string[] = [];
  const pending = [objects];
  while (pending.length > 0) {
    const store = pending.shift()!;
    if (found.includes(store) || !(await stat(store).catch(() => undefined))) continue;
    found.push(store);
    pending.push(...(await readAlternates(store)));
  }
  return found;
}

async function keepUnreachableObjects(repo: RepoHandle): Promise<void> {
  const args = ['config', 'gc.pruneExpire'];
  try {
    await runGit([...args, 'never'], { gitDir: repo.path });
  } catch (error) {
    // Another fork being made at the same moment holds config.lock; fine if it wrote the same.
    const { stdout } = await runGit(['config', '--get', 'gc.pruneExpire'], {
      gitDir: repo.path,
      okExitCodes: [0, 1],
    });
    if (stdout.toString('utf8').trim() !== 'never') throw error;
  }
}

/**
 * Makes `borrower` borrow `lenders`' objects as a fork made with `shareObjects` does: relative
 * alternates, and lenders that never prune (a restore puts its forks' loans back this way).
 */
export async function lendObjects(borrower: RepoHandle, lenders: readonly RepoHandle[]) {
  for (const lender of lenders) await keepUnreachableObjects(lender);
  await writeAlternates(
    objectsDir(borrower.path),
    lenders.map((lender) => objectsDir(lender.path)),
  );
}

/** Whether `repo` borrows objects from `from` through its alternates. */
export async function borrowsFrom(repo: RepoHandle, from: RepoHandle): Promise<boolean> {
  const stores = await readAlternates(objectsDir(repo.path));
  return stores.includes(objectsDir(from.path));
}

/** Attempts at detaching while pushes keep adding objects that lean on the borrowed store. */
const DETACH_ATTEMPTS = 3;

/**
 * Makes a repository self-contained: packs every object it reaches, including borrowed ones
 * (`repack -a` without `-l`), then drops the alternates link, checking connectivity before the
 * link is gone for good. A push that lands between the repack and the check may bring objects
 * that lean on the borrowed store (the client was told the store's tips as `.have`s); the check
 * then fails, the link is put back and the whole is tried again. Returns false when the
 * repository borrowed nothing (or another process detached it first).
 */
export async function detachFromAlternates(repo: RepoHandle): Promise<boolean> {
  await requireRepository(repo);
  const alternates = path.join(repo.path, 'objects', 'info', 'alternates');
  for (let attempt = 1; ; attempt++) {
    if (!(await stat(alternates).catch(() => undefined))) return false;
    await runGit(['repack', '-a', '-d', '-q'], { gitDir: repo.path, timeoutMs: 0 });
    const parked = `${alternates}.detached`;
    try {
      await rename(alternates, parked);
    } catch (error) {
      // Another process (a replica doing the same at start) detached it first.
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
    try {
      await runGit(['fsck', '--connectivity-only', '--no-dangling', '--no-progress'], {
        gitDir: repo.path,
        timeoutMs: 0,
      });
    } catch (error) {
      await rename(parked, alternates);
      if (attempt === DETACH_ATTEMPTS) throw error;
      continue;
    }
    await rm(parked, { force: true });
    return true;
  }
}

/**
 * Removes temp directories left by assemblies or deletions that never finished. Run at start-up;
 * entries younger than `olderThanMs` are kept, as another replica may be using them right now.
 * Returns how many were removed.
 */
export async function sweepTempDirs(
  paths: RepoPaths,
  olderThanMs = 60 * 60 * 1000,
): Promise<number> {
  const entries = await readdir(paths.tempRoot).catch((): string[] => []);
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  for (const entry of entries) {
    const full = path.join(paths.tempRoot, entry);
    const info = await stat(full).catch(() => undefined);
    if (info && info.mtimeMs <= cutoff) {
      await rm(full, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
