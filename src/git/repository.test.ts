import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Conflict, Invalid, NotFound } from '../domain/errors.ts';
import { PRE_RECEIVE_HOOK } from './hooks.ts';
import { listRefs, readDefaultBranch } from './refs.ts';
import { repositoryExists } from './repo-exists.ts';
import { RepoPaths } from './repo-paths.ts';
import {
  borrowsFrom,
  createFork,
  deleteRepository,
  detachFromAlternates,
  initBare,
  sweepTempDirs,
} from './repository.ts';
import { commitFiles, git, makeTempDir, type TempDir } from './test-support.ts';

let tmp: TempDir;
let paths: RepoPaths;
beforeEach(async () => {
  tmp = await makeTempDir();
  paths = new RepoPaths(path.join(tmp.path, 'repos'));
});
afterEach(() => tmp.remove());

const SHARED = { shareObjects: true } as const;
const COPIED = { shareObjects: false } as const;

const config = (gitDir: string, key: string) =>
  git(['config', '--get', key], { gitDir, okExitCodes: [0, 1] });

describe('initBare', () => {
  it('creates a bare repository with Kiln config, hook and default branch', async () => {
    const repo = paths.resolve({ owner: 'Alice', name: 'Tools' });
    await initBare(paths, repo, { defaultBranch: 'trunk' });

    expect(repo.path).toBe(path.join(tmp.path, 'repos', 'alice', 'tools.git'));
    expect(await repositoryExists(repo)).toBe(true);
    expect(await readDefaultBranch(repo)).toBe('trunk');
    expect(await config(repo.path, 'core.bare')).toBe('true');
    expect(await config(repo.path, 'uploadpack.allowFilter')).toBe('true');
    expect(await config(repo.path, 'uploadpack.allowAnySHA1InWant')).toBe('true');
    expect(await config(repo.path, 'receive.denyNonFastForwards')).toBe('false');
    expect(await config(repo.path, 'receive.denyDeletes')).toBe('false');
    expect(await config(repo.path, 'receive.fsckObjects')).toBe('false');
    expect(await config(repo.path, 'core.logAllRefUpdates')).toBe('true');
    const hook = path.join(repo.path, 'hooks', 'pre-receive');
    expect(await readFile(hook, 'utf8')).toBe(PRE_RECEIVE_HOOK);
    // Executable by its owner alone, like everything in the data directory.
    expect((await stat(hook)).mode & 0o777).toBe(0o700);
    expect(await listRefs(repo)).toEqual({ branches: [], tags: [] });
  });

  it('turns on fsck of pushed objects when asked', async () => {
    const repo = paths.resolve({ owner: 'a', name: 'b' });
    await initBare(paths, repo, { defaultBranch: 'main', fsckObjects: true });
    expect(await config(repo.path, 'receive.fsckObjects')).toBe('true');
  });

  it('refuses to create over an existing repository and leaves no temp dir', async () => {
    const repo = paths.resolve({ owner: 'a', name: 'b' });
    await initBare(paths, repo, { defaultBranch: 'main' });
    await expect(initBare(paths, repo, { defaultBranch: 'main' })).rejects.toBeInstanceOf(Conflict);
    await expect(readdirSafe(paths.tempRoot)).resolves.toEqual([]);
  });

  it('refuses a bad default branch before touching the disk', async () => {
    const repo = paths.resolve({ owner: 'a', name: 'b' });
    await expect(initBare(paths, repo, { defaultBranch: '--bad' })).rejects.toBeInstanceOf(Invalid);
    await expect(initBare(paths, repo, { defaultBranch: 'a..b' })).rejects.toBeInstanceOf(Invalid);
    expect(await repositoryExists(repo)).toBe(false);
  });

  it('lets only one of two concurrent creations win', async () => {
    const repo = paths.resolve({ owner: 'a', name: 'race' });
    const results = await Promise.allSettled([
      initBare(paths, repo, { defaultBranch: 'main' }),
      initBare(paths, repo, { defaultBranch: 'main' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await repositoryExists(repo)).toBe(true);
  });
});

describe('deleteRepository', () => {
  it('removes the repository and its temp copy', async () => {
    const repo = paths.resolve({ owner: 'a', name: 'b' });
    await initBare(paths, repo, { defaultBranch: 'main' });
    await deleteRepository(paths, repo);
    expect(await repositoryExists(repo)).toBe(false);
    await expect(readdirSafe(paths.tempRoot)).resolves.toEqual([]);
    await expect(deleteRepository(paths, repo)).rejects.toBeInstanceOf(NotFound);
  });
});

describe('forks', () => {
  async function parentWithHistory() {
    const parent = paths.resolve({ owner: 'up', name: 'stream' });
    await initBare(paths, parent, { defaultBranch: 'develop' });
    const first = await commitFiles(parent.path, {
      branch: 'develop',
      files: { 'a.txt': 'one\n' },
    });
    const second = await commitFiles(parent.path, {
      branch: 'feature',
      files: { 'b.txt': 'two\n' },
    });
    await git(['tag', '-a', '-m', 'release', 'v1', first], { gitDir: parent.path });
    await git(['update-ref', 'refs/pull/1/head', second], { gitDir: parent.path });
    return { parent, first, second };
  }

  it('borrows objects through a relative alternates path and copies branches and tags', async () => {
    const { parent, first, second } = await parentWithHistory();
    const fork = paths.resolve({ owner: 'me', name: 'copy' });
    await createFork(paths, parent, fork, SHARED);

    const alternates = await readFile(
      path.join(fork.path, 'objects', 'info', 'alternates'),
      'utf8',
    );
    expect(alternates.trim()).toBe('../../../up/stream.git/objects');
    expect(await readDefaultBranch(fork)).toBe('develop');
    const refs = await listRefs(fork);
    expect(refs.branches.map((b) => [b.name, b.sha])).toEqual([
      ['develop', first],
      ['feature', second],
    ]);
    expect(refs.tags.map((t) => [t.name, t.commitSha])).toEqual([['v1', first]]);
    // Pull request refs belong to the parent alone.
    expect(await git(['for-each-ref', 'refs/pull/'], { gitDir: fork.path })).toBe('');
    // The fork has no objects of its own yet, but can read all of them.
    expect(await git(['count-objects'], { gitDir: fork.path })).toMatch(/^0 objects/);
    expect(await git(['cat-file', '-p', `${second}:b.txt`], { gitDir: fork.path })).toBe('two');
    expect(await config(parent.path, 'gc.pruneExpire')).toBe('never');
  });

  it('refuses to fork a missing parent or onto an existing repository', async () => {
    const { parent } = await parentWithHistory();
    await expect(
      createFork(
        paths,
        paths.resolve({ owner: 'no', name: 'body' }),
        paths.resolve({ owner: 'x', name: 'y' }),
        SHARED,
      ),
    ).rejects.toBeInstanceOf(NotFound);
    await expect(createFork(paths, parent, parent, SHARED)).rejects.toBeInstanceOf(Conflict);
  });

  it('keeps a detached fork working after its parent is deleted', async () => {
    const { parent, second } = await parentWithHistory();
    const fork = paths.resolve({ owner: 'me', name: 'copy' });
    await createFork(paths, parent, fork, SHARED);
    const own = await commitFiles(fork.path, { branch: 'feature', files: { 'c.txt': 'three\n' } });

    expect(await detachFromAlternates(fork)).toBe(true);
    expect(await detachFromAlternates(fork)).toBe(false);
    await deleteRepository(paths, parent);

    await git(['fsck', '--no-dangling'], { gitDir: fork.path });
    expect(await git(['cat-file', '-p', `${own}:b.txt`], { gitDir: fork.path })).toBe('two');
    expect(await git(['rev-parse', 'feature~1'], { gitDir: fork.path })).toBe(second);
    const clone = path.join(tmp.path, 'clone');
    await git(['clone', '--quiet', fork.path, clone], { cwd: tmp.path });
    expect(await readFile(path.join(clone, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('detaches a fork once when two processes try at the same moment', async () => {
    const { parent, second } = await parentWithHistory();
    const fork = paths.resolve({ owner: 'me', name: 'raced' });
    await createFork(paths, parent, fork, SHARED);

    const results = await Promise.all([detachFromAlternates(fork), detachFromAlternates(fork)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await deleteRepository(paths, parent);
    await git(['fsck', '--no-dangling'], { gitDir: fork.path });
    expect(await git(['rev-parse', 'feature'], { gitDir: fork.path })).toBe(second);
  });

  it('makes forks of forks', async () => {
    const { parent, first } = await parentWithHistory();
    const middle = paths.resolve({ owner: 'me', name: 'middle' });
    const leaf = paths.resolve({ owner: 'you', name: 'leaf' });
    await createFork(paths, parent, middle, SHARED);
    await createFork(paths, middle, leaf, SHARED);
    expect(await git(['cat-file', '-t', first], { gitDir: leaf.path })).toBe('commit');
    expect(await borrowsFrom(leaf, middle)).toBe(true);
    expect(await borrowsFrom(leaf, parent)).toBe(false);
  });

  it("without sharing, holds the parent's objects of the moment and nothing it gets later", async () => {
    const { parent, first, second } = await parentWithHistory();
    await git(['repack', '-a', '-d', '-q'], { gitDir: parent.path });
    await commitFiles(parent.path, { branch: 'develop', files: { 'loose.txt': 'loose\n' } });
    const fork = paths.resolve({ owner: 'me', name: 'copy' });
    await createFork(paths, parent, fork, COPIED);
    const later = await commitFiles(parent.path, {
      branch: 'develop',
      files: { 'secret.txt': 'after the fork\n' },
    });

    expect(await borrowsFrom(fork, parent)).toBe(false);
    const alternates = path.join(fork.path, 'objects', 'info', 'alternates');
    expect(await stat(alternates).catch(() => undefined)).toBeUndefined();
    // The pack is the parent's own file under a second name, not a copy of its bytes.
    const pack = (dir: string) =>
      readdir(path.join(dir, 'objects', 'pack')).then((files) =>
        files.filter((file) => file.endsWith('.pack')),
      );
    const [name] = await pack(parent.path);
    expect(await pack(fork.path)).toEqual([name]);
    const inode = async (dir: string) => (await stat(path.join(dir, 'objects', 'pack', name!))).ino;
    expect(await inode(fork.path)).toBe(await inode(parent.path));

    const refs = await listRefs(fork);
    expect(refs.branches.map((b) => b.name)).toEqual(['develop', 'feature']);
    expect(await git(['cat-file', '-p', `${second}:b.txt`], { gitDir: fork.path })).toBe('two');
    expect(await git(['cat-file', '-t', first], { gitDir: fork.path })).toBe('commit');
    await git(['fsck', '--no-dangling'], { gitDir: fork.path });
    await expect(git(['cat-file', '-e', later], { gitDir: fork.path })).rejects.toThrow();
    // Nothing of the fork's depends on the parent any more.
    await deleteRepository(paths, parent);
    await git(['fsck', '--no-dangling'], { gitDir: fork.path });
  });

  it('without sharing, also holds what the parent borrows, and borrows nothing', async () => {
    const { parent, first } = await parentWithHistory();
    const middle = paths.resolve({ owner: 'me', name: 'middle' });
    const leaf = paths.resolve({ owner: 'you', name: 'leaf' });
    await createFork(paths, parent, middle, SHARED);
    await commitFiles(middle.path, { branch: 'develop', files: { 'm.txt': 'middle\n' } });
    await createFork(paths, middle, leaf, COPIED);

    expect(await borrowsFrom(leaf, middle)).toBe(false);
    expect(await borrowsFrom(leaf, parent)).toBe(false);
    const alternates = path.join(leaf.path, 'objects', 'info', 'alternates');
    expect(await stat(alternates).catch(() => undefined)).toBeUndefined();
    expect(await git(['cat-file', '-t', first], { gitDir: leaf.path })).toBe('commit');
    await deleteRepository(paths, middle);
    await deleteRepository(paths, parent);
    await git(['fsck', '--no-dangling'], { gitDir: leaf.path });
  });
});

describe('sweepTempDirs', () => {
  it('removes old leftovers and keeps fresh ones', async () => {
    await mkdir(path.join(paths.tempRoot, 'new-old', 'objects'), { recursive: true });
    await writeFile(path.join(paths.tempRoot, 'new-old', 'HEAD'), 'ref: refs/heads/main\n');
    await mkdir(path.join(paths.tempRoot, 'new-fresh'), { recursive: true });
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(path.join(paths.tempRoot, 'new-old'), old, old);

    expect(await sweepTempDirs(paths)).toBe(1);
    expect(await readdirSafe(paths.tempRoot)).toEqual(['new-fresh']);
    expect(await sweepTempDirs(paths, 0)).toBe(1);
  });

  it('is a no-op before the first repository exists', async () => {
    expect(await sweepTempDirs(paths)).toBe(0);
  });
});

function readdirSafe(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}
