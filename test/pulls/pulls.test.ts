/**
 * Pull requests over the REST API with real git: numbering, Gitea's shapes and status codes,
 * close and reopen, real merges (conflicts leave everything as it was), head tracking through
 * refs/pull/N/head, and the .diff/.patch downloads.
 */
import { describe, expect, it } from 'vitest';
import { eventually, processesIn } from '../../src/git/test-support.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { Json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { type PullWorld, pullWorld } from './support.ts';

let kiln: TestServer;
let git: GitClient;
useWorld({}, (world) => {
  ({ kiln, git } = world);
});

const lsRemote = async (world: PullWorld, ref: string) =>
  (await git.ok(['ls-remote', world.url, ref])).split('\t')[0] ?? '';

describe('creating pull requests', () => {
  it('opens a pull with Gitea’s shape and keeps the body byte for byte', async () => {
    const world = await pullWorld(kiln, git);
    const sha = await world.pushBranch('renovate/lodash-4.x', { 'a.txt': 'one\n' });
    const body = '<!-- renovate:hidden {"a":1} -->\n\n**Update** `lodash`\r\n\u00e9';
    const created = await world.api(`/repos/${world.owner.handle}/${world.name}/pulls`, {
      body: { title: 'Update lodash', body, head: 'renovate/lodash-4.x', base: 'main', labels: [] },
    });
    expect(created.status).toBe(201);
    const pull = created.body;
    expect(pull.number).toBe(1);
    expect(pull.body).toBe(body);
    expect(pull.state).toBe('open');
    expect(pull.mergeable).toBe(true);
    expect(pull.merged).toBe(false);
    expect(pull.labels).toEqual([]);
    expect(pull.head.label).toBe('renovate/lodash-4.x');
    expect(pull.head.ref).toBe('renovate/lodash-4.x');
    expect(pull.head.sha).toBe(sha);
    expect(pull.head.repo.full_name).toBe(`${world.owner.handle}/${world.name}`);
    expect(pull.base.ref).toBe('main');
    expect(pull.base.sha).toBe(await lsRemote(world, 'refs/heads/main'));
    expect(pull.user.username).toBe(world.owner.handle);
    expect(pull.user).not.toHaveProperty('email');
    expect(pull.html_url).toBe(`${kiln.url}/repos/${world.owner.handle}/${world.name}/pulls/1`);
    expect(pull.diff_url).toBe(`${pull.html_url}.diff`);
    expect(pull.merged_by).toBeNull();
    expect(pull.merge_commit_sha).toBeNull();
    expect(await lsRemote(world, 'refs/pull/1/head')).toBe(sha);
  });

  it('answers 409 for a second open pull of the same head and base, 422 for bad heads', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('feature', { 'f.txt': 'x\n' });
    await world.openPull('feature');
    const path = `/repos/${world.owner.handle}/${world.name}/pulls`;
    expect(
      (await world.api(path, { body: { title: 't', head: 'feature', base: 'main' } })).status,
    ).toBe(409);
    expect(
      (await world.api(path, { body: { title: 't', head: 'main', base: 'main' } })).status,
    ).toBe(422);
    expect(
      (await world.api(path, { body: { title: 't', head: 'nope', base: 'main' } })).status,
    ).toBe(422);
    expect(
      (await world.api(path, { body: { title: 't', head: 'feature', base: 'nope' } })).status,
    ).toBe(422);
    expect(
      (await world.api(path, { body: { title: '', head: 'feature', base: 'main' } })).status,
    ).toBe(422);
    expect((await world.api(path, { body: { head: 'feature', base: 'main' } })).status).toBe(422);
  });

  it('numbers 50 concurrent creates 1..50 without duplicates or gaps', async () => {
    const world = await pullWorld(kiln, git);
    for (let i = 0; i < 50; i++)
      await git.ok(['branch', '-f', `b${i}`, 'HEAD'], { cwd: world.work });
    await world.pushBranch('base2', { 'base.txt': 'base\n' });
    await git.ok(['checkout', '-q', 'main'], { cwd: world.work });
    await git.ok(['push', '-q', 'origin', ...Array.from({ length: 50 }, (_, i) => `b${i}`)], {
      cwd: world.work,
    });
    const path = `/repos/${world.owner.handle}/${world.name}/pulls`;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        world.api(path, { body: { title: `p${i}`, head: `b${i}`, base: 'base2' } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => r.body.number as number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});

describe('listing and editing', () => {
  it('filters by state, sorts by recent update, paginates with Link and X-Total-Count', async () => {
    const world = await pullWorld(kiln, git);
    for (const branch of ['a', 'b', 'c']) {
      await world.pushBranch(branch, { [`${branch}.txt`]: branch });
      await world.openPull(branch);
    }
    const path = `/repos/${world.owner.handle}/${world.name}/pulls`;
    const closed = await world.api(`${path}/1`, { method: 'PATCH', body: { state: 'closed' } });
    expect(closed.status).toBe(201);
    expect(closed.body.state).toBe('closed');
    expect(closed.body.closed_at).not.toBeNull();
    const edited = await world.api(`${path}/2`, { method: 'PATCH', body: { title: 'B!' } });
    expect(edited.body.title).toBe('B!');

    const open = await world.api(`${path}?state=open`);
    expect(open.body.map((p: { number: number }) => p.number).sort()).toEqual([2, 3]);
    expect(
      (await world.api(`${path}?state=closed`)).body.map((p: { number: number }) => p.number),
    ).toEqual([1]);
    const recent = await world.api(`${path}?state=all&sort=recentupdate`);
    expect(recent.body[0].number).toBe(2);

    const response = await fetch(`${kiln.url}/api/v1${path}?state=all&limit=2`, {
      headers: { authorization: `token ${world.token}` },
    });
    expect(response.headers.get('x-total-count')).toBe('3');
    expect(response.headers.get('link')).toContain('rel="next"');
    expect(response.headers.get('link')).toContain('page=2');
    expect((await world.api(`${path}?sort=bogus`)).status).toBe(422);
  });

  it('lists pulls from forks with their live heads, starting no git process in a fork', async () => {
    const world = await pullWorld(kiln, git);
    const forks = [];
    for (const branch of ['topic', 'feature/deep']) {
      const { user, token } = await kiln.make.userWithToken();
      const fork = await world.api(`/repos/${world.owner.handle}/${world.name}/forks`, {
        body: {},
        token,
      });
      expect(fork.status).toBe(202);
      const work = await git.clone(
        repoUrl(kiln.url, user.handle, world.name, { token, as: 'username' }),
      );
      await git.ok(['checkout', '-q', '-b', branch], { cwd: work });
      const sha = await git.commit(work, { 'fork.txt': user.handle }, `from ${user.handle}`);
      await git.ok(['push', '-q', 'origin', branch], { cwd: work });
      const pull = await world.api(`/repos/${world.owner.handle}/${world.name}/pulls`, {
        body: { title: `From ${user.handle}`, head: `${user.handle}:${branch}`, base: 'main' },
        token,
      });
      expect(pull.status).toBe(201);
      const handle = kiln.app.git.paths.resolve({ owner: user.handle, name: world.name });
      forks.push({ handle, work, branch, sha, number: pull.body.number as number });
    }
    const [moved, packed] = forks as [(typeof forks)[0], (typeof forks)[0]];
    // One head moves on (a loose ref); the other fork's refs are packed, as `git gc` leaves them.
    moved.sha = await git.commit(moved.work, { 'fork.txt': 'again' }, 'moved on');
    await git.ok(['push', '-q', 'origin', moved.branch], { cwd: moved.work });
    await expect.poll(() => lsRemote(world, `refs/pull/${moved.number}/head`)).toBe(moved.sha);
    await git.ok(['pack-refs', '--all'], { cwd: packed.handle.path });
    // Whatever git the setup left running in the forks goes (the pool's cat-file, and a push's
    // receive-pack or `gc --auto` that may outlive the client's answer), so any found later is
    // the list's.
    for (const fork of forks) {
      await eventually(async () => {
        await kiln.app.git.catFiles.evict(fork.handle);
        return (await processesIn(fork.handle.path)).length === 0;
      });
    }

    const listed = await world.api(`/repos/${world.owner.handle}/${world.name}/pulls?state=open`);
    expect(listed.status).toBe(200);
    const heads = new Map(
      listed.body.map((pull: Json) => [pull.number, { ref: pull.head.ref, sha: pull.head.sha }]),
    );
    for (const fork of forks) {
      expect(heads.get(fork.number)).toEqual({ ref: fork.branch, sha: fork.sha });
      expect(await processesIn(fork.handle.path)).toEqual([]);
    }
  });

  it('reopens a closed pull, and refuses to reopen a merged one', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('x', { 'x.txt': 'x' });
    await world.openPull('x');
    const path = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
    await world.api(path, { method: 'PATCH', body: { state: 'closed' } });
    const reopened = await world.api(path, { method: 'PATCH', body: { state: 'open' } });
    expect(reopened.status).toBe(201);
    expect(reopened.body.state).toBe('open');
    expect((await world.api(`${path}/merge`, { body: { Do: 'merge' } })).status).toBe(200);
    expect((await world.api(path, { method: 'PATCH', body: { state: 'open' } })).status).toBe(409);
  });

  it('lets only the author or a writer edit', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('y', { 'y.txt': 'y' });
    await world.openPull('y');
    const { token: other } = await kiln.make.userWithToken();
    const path = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
    expect(
      (await world.api(path, { method: 'PATCH', body: { title: 'mine' }, token: other })).status,
    ).toBe(403);
    expect((await world.api(`${path}/merge`, { body: {}, token: other })).status).toBe(403);
  });
});

describe('merging', () => {
  it('merges with a real merge commit, keeps it on the base branch, then answers 405', async () => {
    const world = await pullWorld(kiln, git);
    const head = await world.pushBranch('feature', { 'feature.txt': 'new\n' });
    await world.openPull('feature');
    const baseBefore = await lsRemote(world, 'refs/heads/main');
    const path = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
    const merged = await world.api(`${path}/merge`, {
      body: { Do: 'squash', MergeTitleField: 'ignored' },
    });
    expect(merged.status).toBe(200);
    const tip = await lsRemote(world, 'refs/heads/main');
    await git.ok(['fetch', '-q', 'origin'], { cwd: world.work });
    const parents = await git.ok(['log', '-1', '--format=%P%n%s', tip], { cwd: world.work });
    expect(parents.split('\n')[0]).toBe(`${baseBefore} ${head}`);
    expect(parents.split('\n')[1]).toBe(
      "Merge pull request 'Pull feature' (#1) from feature into main",
    );
    const pull = (await world.api(path)).body;
    expect(pull.merged).toBe(true);
    expect(pull.state).toBe('closed');
    expect(pull.mergeable).toBe(false);
    expect(pull.merge_commit_sha).toBe(tip);
    expect(pull.merged_by.login).toBe(world.owner.handle);
    expect((await world.api(`${path}/merge`)).status).toBe(204);
    expect((await world.api(`${path}/merge`, { body: { Do: 'merge' } })).status).toBe(405);
  });

  it('answers a merge before its listeners have heard of it, and they all hear it', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('slow-listeners', { 'slow.txt': 'new\n' });
    await world.openPull('slow-listeners');
    const { services } = kiln.app;
    const { repo } = await services.repos.get(world.owner, world.owner.handle, world.name);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const heard: string[] = [];
    const stop = kiln.app.events.subscribe('pull', async (event) => {
      if (event.context.base.id !== repo.id) return;
      await held;
      heard.push(`${event.action} merged=${event.merged}`);
    });
    try {
      const path = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
      // A listener that never finishes must not hold the merger's answer.
      const merged = await world.api(`${path}/merge`, { body: { Do: 'merge' } });
      expect(merged.status).toBe(200);
      expect((await world.api(path)).body.merged).toBe(true);
      expect(heard).toEqual([]);
      release();
      await services.pullMerges.settle();
      expect(heard).toEqual(['closed merged=true']);
    } finally {
      release();
      stop();
    }
  });

  it('refuses a conflicting merge with 409 and changes nothing', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('left', { 'README.md': 'left\n' });
    await world.openPull('left');
    await world.pushBranch('main', { 'README.md': 'right\n' });
    const before = await lsRemote(world, 'refs/heads/main');
    const path = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
    expect((await world.api(`${path}/merge`, { body: { Do: 'merge' } })).status).toBe(409);
    expect(await lsRemote(world, 'refs/heads/main')).toBe(before);
    const pull = (await world.api(path)).body;
    expect(pull.merged).toBe(false);
    expect(pull.state).toBe('open');
  });

  it('refuses to merge a head that shares no history with the base, with 409', async () => {
    const world = await pullWorld(kiln, git);
    await git.ok(['checkout', '-q', '--orphan', 'unrelated'], { cwd: world.work });
    await git.ok(['rm', '-rfq', '.'], { cwd: world.work });
    await git.commit(world.work, { 'other.txt': 'elsewhere\n' }, 'a separate history');
    await git.ok(['push', '-q', 'origin', 'unrelated'], { cwd: world.work });
    await world.openPull('unrelated');
    const before = await lsRemote(world, 'refs/heads/main');
    const path = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
    const refused = await world.api(`${path}/merge`, { body: { Do: 'merge' } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('no history');
    expect(await lsRemote(world, 'refs/heads/main')).toBe(before);
  });

  it('refuses to merge a closed pull with 405', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('z', { 'z.txt': 'z' });
    await world.openPull('z');
    const path = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
    await world.api(path, { method: 'PATCH', body: { state: 'closed' } });
    expect((await world.api(`${path}/merge`, { body: { Do: 'merge' } })).status).toBe(405);
  });

  it('lands two concurrent merges into one base without losing a commit', async () => {
    const world = await pullWorld(kiln, git);
    const one = await world.pushBranch('one', { 'one.txt': '1' });
    const two = await world.pushBranch('two', { 'two.txt': '2' });
    await world.openPull('one');
    await world.openPull('two');
    const base = `/repos/${world.owner.handle}/${world.name}/pulls`;
    const results = await Promise.all([
      world.api(`${base}/1/merge`, { body: { Do: 'merge' } }),
      world.api(`${base}/2/merge`, { body: { Do: 'merge' } }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([200, 409]).toContain(statuses[1]);
    await git.ok(['fetch', '-q', 'origin'], { cwd: world.work });
    for (const [sha, result] of [
      [one, results[0]],
      [two, results[1]],
    ] as const) {
      const contained =
        (await git.run(['merge-base', '--is-ancestor', sha, 'origin/main'], { cwd: world.work }))
          .code === 0;
      expect(contained).toBe(result?.status === 200);
    }
  });

  it('does not lose a push to the base made while merging', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('feat', { 'feat.txt': 'f' });
    await world.openPull('feat');
    await git.ok(['fetch', '-q', 'origin'], { cwd: world.work });
    await git.ok(['checkout', '-q', '-B', 'main', 'origin/main'], { cwd: world.work });
    const pushed = await git.commit(world.work, { 'base.txt': 'b' }, 'base change');
    const [merge, push] = await Promise.all([
      world.api(`/repos/${world.owner.handle}/${world.name}/pulls/1/merge`, {
        body: { Do: 'merge' },
      }),
      git.run(['push', '-q', 'origin', 'main'], { cwd: world.work }),
    ]);
    await git.ok(['fetch', '-q', 'origin'], { cwd: world.work });
    if (push.code === 0) {
      expect(
        (await git.run(['merge-base', '--is-ancestor', pushed, 'origin/main'], { cwd: world.work }))
          .code,
      ).toBe(0);
    }
    expect([200, 409]).toContain(merge.status);
  });
});

describe('head tracking and downloads', () => {
  it('moves refs/pull/N/head with pushes to the head branch and keeps it after deletion', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('topic', { 't.txt': '1' });
    await world.openPull('topic');
    const second = await world.pushBranch('topic', { 't.txt': '2' }, 'topic');
    await expect.poll(() => lsRemote(world, 'refs/pull/1/head')).toBe(second);
    const path = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
    expect((await world.api(path)).body.head.sha).toBe(second);
    await git.ok(['push', '-q', 'origin', '--delete', 'topic'], { cwd: world.work });
    const pull = (await world.api(path)).body;
    expect(pull.head.ref).toBe('refs/pull/1/head');
    expect(pull.head.sha).toBe(second);
  });

  it('opens a pull from a fork as owner:branch and merges it', async () => {
    const world = await pullWorld(kiln, git);
    const { user: forker, token: forkToken } = await kiln.make.userWithToken();
    const fork = await world.api(`/repos/${world.owner.handle}/${world.name}/forks`, {
      body: {},
      token: forkToken,
    });
    expect(fork.status).toBe(202);
    const forkWork = await git.clone(
      `${kiln.url.replace('//', `//${forkToken}:@`)}/${forker.handle}/${world.name}.git`,
    );
    await git.ok(['checkout', '-q', '-b', 'from-fork'], { cwd: forkWork });
    const sha = await git.commit(forkWork, { 'fork.txt': 'hello' }, 'from the fork');
    await git.ok(['push', '-q', 'origin', 'from-fork'], { cwd: forkWork });
    const created = await world.api(`/repos/${world.owner.handle}/${world.name}/pulls`, {
      body: { title: 'From fork', head: `${forker.handle}:from-fork`, base: 'main' },
      token: forkToken,
    });
    expect(created.status).toBe(201);
    expect(created.body.head.label).toBe('from-fork');
    expect(created.body.head.repo.full_name).toBe(`${forker.handle}/${world.name}`);
    expect(await lsRemote(world, 'refs/pull/1/head')).toBe(sha);
    const merged = await world.api(`/repos/${world.owner.handle}/${world.name}/pulls/1/merge`, {
      body: { Do: 'merge' },
    });
    expect(merged.status).toBe(200);
    await git.ok(['fetch', '-q', 'origin'], { cwd: world.work });
    expect(
      (await git.run(['merge-base', '--is-ancestor', sha, 'origin/main'], { cwd: world.work }))
        .code,
    ).toBe(0);
  });

  it('serves .diff and .patch as plain text', async () => {
    const world = await pullWorld(kiln, git);
    await world.pushBranch('d', { 'd.txt': 'diff me\n' });
    const pull = await world.openPull('d');
    const diff = await fetch(pull.diff_url);
    expect(diff.status).toBe(200);
    expect(diff.headers.get('content-type')).toContain('text/plain');
    expect(await diff.text()).toContain('+diff me');
    const patch = await (await fetch(pull.patch_url)).text();
    expect(patch).toMatch(/^From [0-9a-f]{40} /);
    expect(patch).toContain('Subject: [PATCH] change on d');
    expect(
      (await fetch(`${kiln.url}/repos/${world.owner.handle}/${world.name}/pulls/99.diff`)).status,
    ).toBe(404);
  });

  it('hides pulls of a private repository from outsiders', async () => {
    const world = await pullWorld(kiln, git);
    await world.api(`/repos/${world.owner.handle}/${world.name}`, {
      method: 'PATCH',
      body: { private: true },
    });
    await world.pushBranch('p', { 'p.txt': 'p' });
    const pull = await world.openPull('p');
    const { token: other } = await kiln.make.userWithToken();
    const path = `/repos/${world.owner.handle}/${world.name}/pulls`;
    expect((await world.api(path, { token: other })).status).toBe(404);
    expect((await world.api(`${path}/1`, { token: other })).status).toBe(404);
    expect((await fetch(pull.diff_url)).status).toBe(404);
  });
});
