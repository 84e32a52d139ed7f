import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFound } from '../domain/errors.ts';
import { GitError } from './git-error.ts';
import { ensureHooks, PRE_RECEIVE_HOOK, protectedRefsEnv } from './hooks.ts';
import { findBranch } from './refs.ts';
import { type RepoHandle, RepoPaths } from './repo-paths.ts';
import { commitFiles, git, makeTestRepo, type TempDir } from './test-support.ts';

/**
 * The pre-receive hook, driven by real `git push` over file://: the local git starts
 * receive-pack as its child, so the environment variable reaches the hook as it would from the
 * server's receivePack.
 */

let tmp: TempDir;
let repo: RepoHandle;
let work: string;
let base: string;

beforeEach(async () => {
  ({ tmp, repo } = await makeTestRepo());
  base = await commitFiles(repo.path, { branch: 'main', files: { 'a.txt': 'a\n' } });
  await commitFiles(repo.path, { branch: 'feature', files: { 'f.txt': 'f\n' }, parents: [base] });
  work = path.join(tmp.path, 'work');
  await git(['clone', '--quiet', `file://${repo.path}`, work], { cwd: tmp.path });
});
afterEach(() => tmp.remove());

const protect = protectedRefsEnv(['refs/heads/main']);

async function push(args: string[], env: Record<string, string> = protect) {
  return git(['push', '--porcelain', 'origin', ...args], { cwd: work, env }).then(
    (stdout) => ({ ok: true as const, output: stdout }),
    (error: unknown) => {
      if (!(error instanceof GitError)) throw error;
      return { ok: false as const, output: error.stderr };
    },
  );
}

async function commitOn(branch: string, file: string) {
  await git(['checkout', '--quiet', '-B', branch, `origin/${branch}`], { cwd: work });
  await writeFile(path.join(work, file), `${file}\n`);
  await git(['add', file], { cwd: work });
  await git(['commit', '--quiet', '-m', `add ${file}`], { cwd: work });
}

async function rewrite(branch: string) {
  await git(['checkout', '--quiet', '-B', branch, `origin/${branch}`], { cwd: work });
  await git(['commit', '--quiet', '--amend', '-m', 'rewritten'], { cwd: work });
}

describe('pre-receive hook', () => {
  it('allows fast-forward pushes to a protected branch', async () => {
    await commitOn('main', 'b.txt');
    const result = await push(['main']);
    expect(result.ok).toBe(true);
    expect(await findBranch(repo, 'main')).toBe(await git(['rev-parse', 'HEAD'], { cwd: work }));
  });

  it('refuses a force push to a protected branch and leaves it unchanged', async () => {
    await rewrite('main');
    const result = await push(['--force', 'main']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain(
      "kiln: refusing to force-push protected branch 'main' (not a fast-forward)",
    );
    expect(await findBranch(repo, 'main')).toBe(base);
  });

  it('refuses deleting a protected branch', async () => {
    const result = await push([':main']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain("kiln: refusing to delete protected branch 'main'");
    expect(await findBranch(repo, 'main')).toBe(base);
  });

  it('allows force pushes and deletions of other branches in the same push', async () => {
    await rewrite('feature');
    expect((await push(['--force', 'feature'])).ok).toBe(true);
    expect(await findBranch(repo, 'feature')).toBe(await git(['rev-parse', 'HEAD'], { cwd: work }));
    expect((await push([':feature'])).ok).toBe(true);
    expect(await findBranch(repo, 'feature')).toBeUndefined();
  });

  it('allows creating a protected branch', async () => {
    await git(['checkout', '--quiet', '-b', 'release', 'origin/main'], { cwd: work });
    const result = await push(
      ['release'],
      protectedRefsEnv(['refs/heads/main', 'refs/heads/release']),
    );
    expect(result.ok).toBe(true);
  });

  it('protects the refs a pattern matches, with no list of branches', async () => {
    const byPattern = protectedRefsEnv([], ['refs/heads/fea*']);
    await rewrite('feature');
    const forced = await push(['--force', 'feature'], byPattern);
    expect(forced.output).toContain("kiln: refusing to force-push protected branch 'feature'");
    const deleted = await push([':feature'], byPattern);
    expect(deleted.output).toContain("kiln: refusing to delete protected branch 'feature'");
    expect(await findBranch(repo, 'feature')).not.toBeUndefined();
    // A branch the pattern matches may still be created; other branches stay free.
    await git(['checkout', '--quiet', '-b', 'feast', 'origin/main'], { cwd: work });
    expect((await push(['feast'], byPattern)).ok).toBe(true);
    await rewrite('main');
    expect((await push(['--force', 'main'], byPattern)).ok).toBe(true);
  });

  it('protects nothing when the variable is absent', async () => {
    await rewrite('main');
    expect((await push(['--force', 'main'], {})).ok).toBe(true);
  });

  it('refuses refs with a part starting with a dash, but lets them be deleted', async () => {
    const result = await push(['HEAD:refs/heads/-x', 'HEAD:refs/tags/a/-b'], {});
    expect(result.ok).toBe(false);
    expect(result.output).toContain("kiln: refusing 'refs/heads/-x'");
    expect(result.output).toContain("kiln: refusing 'refs/tags/a/-b'");
    await git(['update-ref', 'refs/heads/-old', base], { gitDir: repo.path });
    expect((await push([':refs/heads/-old'], {})).ok).toBe(true);
    expect((await push(['HEAD:refs/heads/ok-x'], {})).ok).toBe(true);
  });

  it('matches whole ref names only', async () => {
    await rewrite('feature');
    const result = await push(
      ['--force', 'feature'],
      protectedRefsEnv(['refs/heads/feat', 'refs/heads/feature/x']),
    );
    expect(result.ok).toBe(true);
  });
});

describe('ensureHooks', () => {
  it('rewrites a hook that was changed or lost its execute bit, and leaves a good one alone', async () => {
    const hook = path.join(repo.path, 'hooks', 'pre-receive');
    expect(await ensureHooks(repo)).toBe(false);
    await writeFile(hook, '#!/bin/sh\nexit 0\n');
    expect(await ensureHooks(repo)).toBe(true);
    await chmod(hook, 0o644);
    expect(await ensureHooks(repo)).toBe(true);
    expect(await ensureHooks(repo)).toBe(false);
    expect(await readFile(hook, 'utf8')).toBe(PRE_RECEIVE_HOOK);
  });

  it('does not create a directory for a repository that does not exist', async () => {
    const paths = new RepoPaths(path.join(tmp.path, 'repos'));
    await expect(ensureHooks(paths.resolve({ owner: 'no', name: 'where' }))).rejects.toBeInstanceOf(
      NotFound,
    );
  });
});

describe('protectedRefsEnv', () => {
  it('joins full ref names and refuses anything else', () => {
    expect(protectedRefsEnv(['refs/heads/a', 'refs/heads/b'])).toEqual({
      KILN_PROTECTED_REFS: 'refs/heads/a\nrefs/heads/b',
    });
    expect(protectedRefsEnv([])).toEqual({});
    expect(protectedRefsEnv([], ['refs/heads/release/*'])).toEqual({
      KILN_PROTECTED_PATTERNS: 'refs/heads/release/*',
    });
    expect(() => protectedRefsEnv([], ['refs/heads/{a,b}'])).toThrow();
    expect(() => protectedRefsEnv(['main'])).toThrow();
    expect(() => protectedRefsEnv(['refs/heads/a\nrefs/heads/b'])).toThrow();
  });
});
