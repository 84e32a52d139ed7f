/**
 * A pull into a public repository from a fork that is then made private, or deleted, carries
 * nothing more from it: later pushes to the head branch do not reach `refs/pull/N/head`, and
 * the pull's page and REST record show neither the head's owner, nor its branch, nor its new
 * tip, to anyone reading the base.
 */
import { describe, expect, it } from 'vitest';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { type PullWorld, pullWorld } from './support.ts';

let kiln: TestServer;
let git: GitClient;
useWorld({ env: { SERVICE_PROTECT_ENABLED: 'false' } }, (world) => {
  ({ kiln, git } = world);
});

/** A fork of the world's repository by a new user, with `branch` pushed and a pull opened. */
async function pullFromFork(world: PullWorld, branch: string) {
  const { user, token } = await kiln.make.userWithToken();
  const base = `/repos/${world.owner.handle}/${world.name}`;
  expect((await world.api(`${base}/forks`, { body: {}, token })).status).toBe(202);
  const work = await git.clone(
    repoUrl(kiln.url, user.handle, world.name, { token, as: 'username' }),
  );
  await git.ok(['checkout', '-q', '-b', branch], { cwd: work });
  const first = await git.commit(work, { 'fork.txt': 'first\n' }, 'first');
  await git.ok(['push', '-q', 'origin', branch], { cwd: work });
  const pull = await world.api(`${base}/pulls`, {
    body: { title: 'A change', head: `${user.handle}:${branch}`, base: 'main' },
    token,
  });
  expect(pull.status).toBe(201);
  const number = pull.body.number as number;
  const fork = `/repos/${user.handle}/${world.name}`;
  return { user, token, work, first, number, fork, base };
}

async function pullRef(world: PullWorld, number: number): Promise<string> {
  return (await git.ok(['ls-remote', world.url, `refs/pull/${number}/head`])).split('\t')[0] ?? '';
}

/** What an anonymous reader of the base sees of the pull: its head on the wire, and its page. */
async function seen(world: PullWorld, number: number) {
  const path = `/repos/${world.owner.handle}/${world.name}/pulls/${number}`;
  const record = await fetch(`${kiln.url}/api/v1${path}`);
  const page = await fetch(`${kiln.url}${path}`);
  expect(record.status).toBe(200);
  expect(page.status).toBe(200);
  const { head } = (await record.json()) as { head: Record<string, unknown> };
  return { head, page: await page.text() };
}

describe('a pull whose head is hidden from the base', () => {
  it('stops carrying a fork made private, and hides its owner, branch and tip', async () => {
    const world = await pullWorld(kiln, git);
    const from = await pullFromFork(world, 'hush-branch');
    await expect.poll(() => pullRef(world, from.number)).toBe(from.first);
    const before = await seen(world, from.number);
    expect(before.head.label).toBe('hush-branch');
    expect(before.page).toContain(`${from.user.handle}:hush-branch`);

    expect(
      (await world.api(from.fork, { method: 'PATCH', body: { private: true }, token: from.token }))
        .status,
    ).toBe(200);
    const later = await git.commit(from.work, { 'fork.txt': 'private now\n' }, 'later');
    await git.ok(['push', '-q', 'origin', 'hush-branch'], { cwd: from.work });
    // The page and the record are read after the push, which is what would have carried it.
    const after = await seen(world, from.number);
    expect(after.head.repo).toBeNull();
    expect(after.head.sha).toBe(from.first);
    expect(JSON.stringify(after.head)).not.toContain('hush-branch');
    expect(after.page).not.toContain('hush-branch');
    expect(after.page).not.toContain(later.slice(0, 7));
    // Reading it as the base's owner changes nothing either.
    const asOwner = await world.api(`${from.base}/pulls/${from.number}`);
    expect(asOwner.body.head.sha).toBe(from.first);
    expect(await pullRef(world, from.number)).toBe(from.first);
    const into = await git.init();
    const fetched = await git.run(['-c', 'protocol.version=2', 'fetch', '-q', world.url, later], {
      cwd: into,
    });
    expect(fetched.code).not.toBe(0);
  });

  it('hides the owner and branch of a deleted head', async () => {
    const world = await pullWorld(kiln, git);
    const from = await pullFromFork(world, 'gone-branch');
    expect((await world.api(from.fork, { method: 'DELETE', token: from.token })).status).toBe(204);
    const after = await seen(world, from.number);
    expect(after.head.repo).toBeNull();
    expect(after.head.sha).toBe(from.first);
    expect(JSON.stringify(after.head)).not.toContain('gone-branch');
    expect(after.page).not.toContain('gone-branch');
  });

  it('refuses a private fork as the head of a pull into a public repository', async () => {
    const world = await pullWorld(kiln, git);
    const from = await pullFromFork(world, 'open-branch');
    expect(
      (await world.api(from.fork, { method: 'PATCH', body: { private: true }, token: from.token }))
        .status,
    ).toBe(200);
    const again = await world.api(`${from.base}/pulls`, {
      body: { title: 'Again', head: `${from.user.handle}:open-branch`, base: 'main' },
      token: from.token,
    });
    expect(again.status).toBe(422);
    expect(again.body.message).toMatch(/private/);
  });
});
