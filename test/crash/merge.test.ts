/**
 * SIGKILL during a pull request merge, at kill points spread over the merge's duration: after a
 * restart on the same data dir and database the repository is clean (`git fsck`), main is either
 * where it was or the merge commit of exactly this pull, a pull marked merged names a merge commit
 * that is in main, and merging again succeeds and leaves the pull merged with its head in main.
 */
import { describe, expect, it } from 'vitest';
import { repoUrl } from '../support/git.ts';
import {
  type CrashWorld,
  crashAndRestart,
  expectConsistent,
  killDelays,
  reaches,
  refSha,
  timeOf,
  useCrashWorld,
} from './support.ts';

let world: CrashWorld;
let work: string;
let counter = 0;

useCrashWorld(async (started) => {
  world = started;
  const created = await world.api('/user/repos', { body: { name: 'merging', auto_init: true } });
  expect(created.status).toBe(201);
  work = await world.git.clone(url());
});

function url(): string {
  return repoUrl(world.kiln.url, world.owner.handle, 'merging', {
    token: world.token,
    as: 'username',
  });
}

/** A fresh topic branch, one file ahead of main, and an open pull for it; returns its number. */
async function openPull(): Promise<number> {
  const branch = `topic${counter++}`;
  const { git } = world;
  await git.ok(['fetch', '-q', url(), 'main'], { cwd: work });
  await git.ok(['checkout', '-q', '-B', branch, 'FETCH_HEAD'], { cwd: work });
  await git.commit(work, { [`${branch}.txt`]: `${branch}\n` }, branch);
  await git.ok(['push', '-q', url(), `${branch}:${branch}`], { cwd: work });
  const pull = await world.api(`/repos/${world.owner.handle}/merging/pulls`, {
    body: { title: branch, head: branch, base: 'main', body: '' },
  });
  expect(pull.status).toBe(201);
  return (pull.body as { number: number }).number;
}

const merge = (number: number) => () =>
  world.api(`/repos/${world.owner.handle}/merging/pulls/${number}/merge`, {
    body: { Do: 'merge' },
  });

describe('SIGKILL during a merge', () => {
  it('leaves main old or merged, never a merged pull without its commit, and merges on retry', async () => {
    const duration = await timeOf(async () =>
      expect((await merge(await openPull())()).status).toBe(200),
    );
    const dir = world.app.git.paths.resolve({ owner: world.owner.handle, name: 'merging' }).path;
    for (const delay of killDelays(duration)) {
      const number = await openPull();
      const before = await refSha(world.git, dir, 'refs/heads/main');
      const pull = await world.api(`/repos/${world.owner.handle}/merging/pulls/${number}`);
      const head = (pull.body as { head: { sha: string } }).head.sha;

      await crashAndRestart(world, merge(number), delay);
      await expectConsistent(world);

      const after = await refSha(world.git, dir, 'refs/heads/main');
      if (after !== before) {
        // Moved: only to a merge commit of exactly the old main and this pull's head.
        const parents = await world.git.ok(['rev-list', '--parents', '-n', '1', after ?? ''], {
          cwd: dir,
        });
        expect(parents.split(' ').slice(1), `kill at ${delay} ms`).toEqual([before, head]);
      }
      const retried = await merge(number)();
      const state = await world.api(`/repos/${world.owner.handle}/merging/pulls/${number}`);
      const body = state.body as { merged: boolean; merge_commit_sha: string };
      // A merge that finished before the kill answers "already merged"; any other retry merges.
      expect([200, 405], `retry after kill at ${delay} ms`).toContain(retried.status);
      expect(body.merged).toBe(true);
      expect(await reaches(world.git, dir, 'refs/heads/main', head)).toBe(true);
      expect(await reaches(world.git, dir, 'refs/heads/main', body.merge_commit_sha)).toBe(true);
      await expectConsistent(world);
    }
  }, 240_000);
});
