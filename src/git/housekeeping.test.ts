import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runGit } from './command.ts';
import {
  countObjectFiles,
  estimateObjectFiles,
  maintainRepository,
  SAMPLED_FAN_OUT_DIRS,
} from './housekeeping.ts';
import { objectsDir } from './object-store.ts';
import type { RepoHandle } from './repo-paths.ts';
import { RepoPaths } from './repo-paths.ts';
import { borrowsFrom, createFork, initBare } from './repository.ts';
import { commitFiles, git, makeTempDir, type TempDir } from './test-support.ts';

let tmp: TempDir;
let paths: RepoPaths;
let repo: RepoHandle;
beforeEach(async () => {
  tmp = await makeTempDir();
  paths = new RepoPaths(path.join(tmp.path, 'repos'));
  repo = paths.resolve({ owner: 'o', name: 'r' });
  await initBare(paths, repo, { defaultBranch: 'main' });
  // Small imports would be written loose; a pack each is what pushes of some size leave.
  await git(['config', 'transfer.unpackLimit', '1'], { gitDir: repo.path });
});
afterEach(() => tmp.remove());

/** Each commit written by fast-import lands in a pack of its own, as a small push would. */
async function commits(target: RepoHandle, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await commitFiles(target.path, {
      branch: 'main',
      files: { [`f${i}`]: `${i}\n` },
      time: 1e9 + i,
    });
  }
}

/** Writes a loose object no ref reaches, last touched `ageMs` ago. */
async function unreachable(target: RepoHandle, content: string, ageMs: number): Promise<string> {
  const { stdout } = await runGit(['hash-object', '-w', '--stdin'], {
    gitDir: target.path,
    input: content,
  });
  const oid = stdout.toString('utf8').trim();
  const file = path.join(objectsDir(target.path), oid.slice(0, 2), oid.slice(2));
  const at = new Date(Date.now() - ageMs);
  await utimes(file, at, at);
  return oid;
}

const exists = async (target: RepoHandle, oid: string) =>
  (await git(['cat-file', '-t', oid], { gitDir: target.path, okExitCodes: [0, 128] })) !== '';

const packFiles = async (target: RepoHandle) => readdir(path.join(objectsDir(target.path), 'pack'));

describe('countObjectFiles', () => {
  it('counts packs and loose objects from the directories', async () => {
    await commits(repo, 3);
    await unreachable(repo, 'loose', 0);
    expect(await countObjectFiles(repo)).toEqual({ packs: 3, looseObjects: 1 });
  });
});

describe('estimateObjectFiles', () => {
  /** `perDir` files in each of the fan-out directories `dirs` (names need not be objects). */
  const looseFiles = async (dirs: readonly string[], perDir: number) => {
    for (const dir of dirs) {
      const at = path.join(objectsDir(repo.path), dir);
      await mkdir(at, { recursive: true });
      for (let i = 0; i < perDir; i++) await writeFile(path.join(at, `${i}`.padStart(38, '0')), '');
    }
  };
  const fanOut = (count: number) =>
    Array.from({ length: count }, (_, i) => i.toString(16).padStart(2, '0'));

  it('counts exactly while there are few fan-out directories', async () => {
    await commits(repo, 2);
    await looseFiles(fanOut(SAMPLED_FAN_OUT_DIRS), 3);
    expect(await estimateObjectFiles(repo)).toEqual(await countObjectFiles(repo));
  });

  it('extrapolates from a sample of the directories past that', async () => {
    await looseFiles(fanOut(200), 2);
    const estimate = await estimateObjectFiles(repo);
    expect(estimate.looseObjects).toBe(400);
    expect(estimate.packs).toBe((await countObjectFiles(repo)).packs);
  });
});

describe('maintainRepository', () => {
  it('rolls packs up into a multi-pack index with a bitmap and writes a commit-graph', async () => {
    await commits(repo, 8);
    expect(await maintainRepository(repo)).toBe('incremental');
    const counts = await countObjectFiles(repo);
    expect(counts.packs).toBeLessThan(8);
    const files = await packFiles(repo);
    expect(files).toContain('multi-pack-index');
    expect(files.some((name) => name.endsWith('.bitmap'))).toBe(true);
    const graphs = await readdir(path.join(objectsDir(repo.path), 'info', 'commit-graphs'));
    expect(graphs).toContain('commit-graph-chain');
    await git(['fsck', '--strict'], { gitDir: repo.path });
  });

  it('deletes nothing in an incremental run, however old', async () => {
    await commits(repo, 2);
    const old = await unreachable(repo, 'old', 30 * 86_400_000);
    await maintainRepository(repo);
    expect(await exists(repo, old)).toBe(true);
  });

  it('prunes unreachable objects older than the grace period in a full run, keeps younger', async () => {
    await commits(repo, 2);
    const old = await unreachable(repo, 'old', 3_600_000);
    const young = await unreachable(repo, 'young', 0);
    expect(await maintainRepository(repo, { pruneAfterMs: 60_000 })).toBe('full');
    expect(await exists(repo, old)).toBe(false);
    expect(await exists(repo, young)).toBe(true);
    await git(['fsck', '--strict'], { gitDir: repo.path });
  });

  it('never prunes a repository marked never to prune (a lender)', async () => {
    await commits(repo, 2);
    const old = await unreachable(repo, 'old', 3_600_000);
    await git(['config', 'gc.pruneExpire', 'never'], { gitDir: repo.path });
    expect(await maintainRepository(repo, { pruneAfterMs: 60_000 })).toBe('incremental');
    expect(await exists(repo, old)).toBe(true);
  });

  it('keeps a borrower borrowing, without copying the lender or writing a bitmap', async () => {
    await commits(repo, 2);
    const fork = paths.resolve({ owner: 'o', name: 'fork' });
    await createFork(paths, repo, fork, { shareObjects: true });
    for (let i = 0; i < 4; i++) {
      await commitFiles(fork.path, {
        branch: 'main',
        files: { [`g${i}`]: `g${i}\n` },
        time: 2e9 + i,
      });
    }
    await maintainRepository(fork);
    expect(await borrowsFrom(fork, repo)).toBe(true);
    const files = await packFiles(fork);
    expect(files).toContain('multi-pack-index');
    expect(files.some((name) => name.endsWith('.bitmap'))).toBe(false);
    // Only the fork's own commits and their trees and blobs: nothing of the lender's.
    const objects = await git(['count-objects', '-v'], { gitDir: fork.path });
    expect(objects).toMatch(/in-pack: 12\n/);
    await git(['fsck', '--strict'], { gitDir: fork.path });
  });
});
