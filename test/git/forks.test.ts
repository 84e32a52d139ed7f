/**
 * Forks over REST and git: `POST /repos/{owner}/{name}/forks` answers 202 with `fork: true` and
 * the parent; the fork borrows the parent's objects through alternates, takes pushes of its own,
 * and keeps working (clone, fsck) after its parent is deleted. Also where a fork may go
 * (organisation, new name) and who may fork what.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { auth, json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { makeRepo } from './fixtures.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
useWorld({ people: ['owner'] }, (world) => {
  ({ kiln, git } = world);
  ({ user: owner, token } = world.people.owner);
});

const post = (path: string, as: string | undefined, body?: object) =>
  fetch(`${kiln.url}/api/v1${path}`, {
    method: 'POST',
    headers: {
      ...(as ? auth.token(as) : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

/** The bare repository's directory on disk (lowercased, as Kiln lays them out). */
const onDisk = (repoOwner: string, name: string) =>
  path.join(kiln.app.dataDir, 'repositories', repoOwner.toLowerCase(), `${name.toLowerCase()}.git`);

/** `git fsck` run on the server's copy of a repository. */
const serverFsck = (repoOwner: string, name: string) =>
  git.ok(['--git-dir', onDisk(repoOwner, name), 'fsck', '--no-progress', '--no-dangling']);

describe('forks', () => {
  it('forks, pushes to the fork, deletes the parent, and the fork lives on', async () => {
    const parent = await makeRepo(kiln, owner, { name: 'upstream' });
    const work = await git.init();
    const base = await git.commit(work, { 'a.txt': 'parent\n', 'big.bin': 'x'.repeat(50_000) });
    await git.ok(['tag', 'v1'], { cwd: work });
    await git.ok(
      [
        'push',
        '-q',
        repoUrl(kiln.url, parent.owner, parent.name, { token, as: 'password' }),
        'main',
        'v1',
      ],
      { cwd: work },
    );

    const forker = await kiln.make.userWithToken();
    const response = await post(`/repos/${parent.owner}/${parent.name}/forks`, forker.token);
    expect(response.status).toBe(202);
    const fork = await json(response);
    expect(fork.fork).toBe(true);
    expect(fork.full_name).toBe(`${forker.user.handle}/upstream`);
    expect(fork.parent.full_name).toBe(`${parent.owner}/upstream`);
    expect(fork.parent).not.toHaveProperty('parent');
    expect(fork.default_branch).toBe('main');
    expect(fork.empty).toBe(false);
    expect(fork.permissions).toEqual({ admin: true, push: true, pull: true });

    // Shares the parent's objects instead of copying them.
    const alternates = path.join(
      onDisk(forker.user.handle, 'upstream'),
      'objects',
      'info',
      'alternates',
    );
    expect(readFileSync(alternates, 'utf8').trim()).toMatch(/upstream\.git\/objects$/);

    const forkUrl = repoUrl(kiln.url, forker.user.handle, 'upstream', {
      token: forker.token,
      as: 'username',
    });
    const clone = await git.clone(forkUrl);
    expect(await git.ok(['rev-parse', 'HEAD', 'v1'], { cwd: clone })).toBe(`${base}\n${base}`);
    const onFork = await git.commit(clone, { 'b.txt': 'fork only\n' });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: clone });
    // The parent does not see what was pushed to the fork.
    expect(await git.ok(['ls-remote', repoUrl(kiln.url, parent.owner, parent.name), 'main'])).toBe(
      `${base}\trefs/heads/main`,
    );

    const removed = await fetch(`${kiln.url}/api/v1/repos/${parent.owner}/${parent.name}`, {
      method: 'DELETE',
      headers: auth.token(token),
    });
    expect(removed.status).toBe(204);
    expect(existsSync(onDisk(parent.owner, parent.name))).toBe(false);
    expect(existsSync(alternates)).toBe(false);

    const again = await git.clone(forkUrl);
    expect(await git.ok(['rev-parse', 'HEAD'], { cwd: again })).toBe(onFork);
    expect(await git.ok(['show', `${base}:big.bin`], { cwd: again })).toHaveLength(50_000);
    expect(await git.ok(['fsck', '--no-progress', '--no-dangling'], { cwd: again })).toBe('');
    expect(await serverFsck(forker.user.handle, 'upstream')).toBe('');

    const view = await json(
      await fetch(`${kiln.url}/api/v1/repos/${forker.user.handle}/upstream`, {
        headers: auth.token(forker.token),
      }),
    );
    expect(view).not.toHaveProperty('parent');
    // And it still takes pushes.
    await git.commit(again, { 'c.txt': 'after\n' });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: again });
  });

  it('forks into an organisation under another name', async () => {
    const parent = await makeRepo(kiln, owner, { autoInit: true });
    const org = await kiln.make.org(owner);
    const response = await post(`/repos/${parent.owner}/${parent.name}/forks`, token, {
      organization: org.handle,
      name: 'renamed',
    });
    expect(response.status).toBe(202);
    const fork = await json(response);
    expect(fork.full_name).toBe(`${org.handle}/renamed`);
    expect(fork.fork).toBe(true);
    const dir = await git.clone(repoUrl(kiln.url, org.handle, 'renamed'));
    expect(await git.ok(['ls-files'], { cwd: dir })).toBe('README.md');
    expect(await serverFsck(org.handle, 'renamed')).toBe('');
  });

  it('forks into the same account under another name', async () => {
    const parent = await makeRepo(kiln, owner, { autoInit: true });
    const response = await post(`/repos/${parent.owner}/${parent.name}/forks`, token, {
      name: `${parent.name}-copy`,
    });
    expect(response.status).toBe(202);
    expect((await json(response)).parent.full_name).toBe(`${parent.owner}/${parent.name}`);
    const dir = await git.clone(repoUrl(kiln.url, parent.owner, `${parent.name}-copy`));
    expect(await git.ok(['ls-files'], { cwd: dir })).toBe('README.md');
    expect(await serverFsck(parent.owner, `${parent.name}-copy`)).toBe('');
  });

  it('answers Gitea status codes for the ways a fork can fail', async () => {
    const parent = await makeRepo(kiln, owner, { autoInit: true });
    const hidden = await makeRepo(kiln, owner, { private: true, autoInit: true });
    const other = await kiln.make.userWithToken();
    const forks = (repo: { owner: string; name: string }) =>
      `/repos/${repo.owner}/${repo.name}/forks`;

    expect((await post(forks(parent), undefined)).status).toBe(401);
    expect((await post(forks(hidden), other.token)).status).toBe(404);
    expect((await post(forks(parent), token)).status).toBe(409);
    expect((await post(forks(parent), token, { name: 'bad name!' })).status).toBe(422);
    expect((await post(forks(parent), other.token)).status).toBe(202);
    expect((await post(forks(parent), other.token)).status).toBe(409);
    const foreignOrg = await kiln.make.org(owner);
    expect(
      (await post(forks(parent), other.token, { organization: foreignOrg.handle, name: 'x' }))
        .status,
    ).toBe(404);

    // A fork of a private repository is private, and invisible to outsiders too.
    const reader = await kiln.make.userWithToken();
    await kiln.app.services.collaborators.put(
      owner,
      hidden.owner,
      hidden.name,
      reader.user.handle,
      'read',
    );
    const privateFork = await post(forks(hidden), reader.token);
    expect(privateFork.status).toBe(202);
    expect((await json(privateFork)).private).toBe(true);
    const forkPath = `/api/v1/repos/${reader.user.handle}/${hidden.name}`;
    expect(
      (await fetch(`${kiln.url}${forkPath}`, { headers: auth.token(other.token) })).status,
    ).toBe(404);
    const listForks = async (as: string) =>
      (
        await json(await fetch(`${kiln.url}/api/v1${forks(hidden)}`, { headers: auth.token(as) }))
      ).map((r: { full_name: string }) => r.full_name);
    expect(await listForks(reader.token)).toEqual([`${reader.user.handle}/${hidden.name}`]);
    // The parent's owner has no rights on someone else's private fork, so it is not listed.
    expect(await listForks(token)).toEqual([]);
  });
});
