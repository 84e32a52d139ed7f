import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RepoHandle, RepoPaths } from '../../git/repo-paths.ts';
import { initBare } from '../../git/repository.ts';
import { commitFiles, makeTempDir, type TempDir } from '../../git/test-support.ts';
import type { Repository } from '../repos/repo.types.ts';
import { MergeabilityService } from './mergeability.service.ts';

let tmp: TempDir;
let handle: RepoHandle;
let root: string;
const repo = { id: 'r' } as Repository;

beforeEach(async () => {
  tmp = await makeTempDir();
  const paths = new RepoPaths(path.join(tmp.path, 'repos'));
  handle = paths.resolve({ owner: 'o', name: 'r' });
  await initBare(paths, handle, { defaultBranch: 'main' });
  root = await commitFiles(handle.path, { branch: 'main', files: { 'a.txt': 'a\n' } });
});
afterEach(async () => {
  await tmp.remove();
});

function service(limit?: number, errors: unknown[] = []) {
  return new MergeabilityService({
    repos: { handle: () => handle },
    pulls: { range: async () => ({ base: root, head: root }) },
    ...(limit ? { limit } : {}),
    onError: (error) => errors.push(error),
  });
}

describe('MergeabilityService', () => {
  it('answers clean or the conflicting paths, and remembers each pair of tips', async () => {
    const base = await commitFiles(handle.path, { branch: 'main', files: { 'a.txt': 'base\n' } });
    const clash = await commitFiles(handle.path, {
      branch: 'clash',
      parents: [root],
      files: { 'a.txt': 'head\n' },
    });
    const fine = await commitFiles(handle.path, {
      branch: 'fine',
      parents: [root],
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n' },
    });
    const answers = service();
    expect(answers.known(repo, base, clash)).toBeUndefined();
    expect(await answers.check(repo, base, clash)).toEqual({ state: 'conflict', files: ['a.txt'] });
    expect(answers.known(repo, base, clash)).toEqual({ state: 'conflict', files: ['a.txt'] });
    expect(await answers.check(repo, base, fine)).toEqual({ state: 'clean' });
  });

  it('forgets the oldest answers past its limit, and knows nothing of missing commits', async () => {
    const errors: unknown[] = [];
    const answers = service(1, errors);
    const one = await commitFiles(handle.path, {
      branch: 'one',
      parents: [root],
      files: { '1': '1' },
    });
    const two = await commitFiles(handle.path, {
      branch: 'two',
      parents: [root],
      files: { '2': '2' },
    });
    await answers.check(repo, root, one);
    await answers.check(repo, root, two);
    expect(answers.known(repo, root, two)).toEqual({ state: 'clean' });
    expect(answers.known(repo, root, one)).toBeUndefined();
    expect(await answers.check(repo, root, 'f'.repeat(40))).toBeUndefined();
    expect(errors.length).toBeGreaterThan(0);
  });
});
