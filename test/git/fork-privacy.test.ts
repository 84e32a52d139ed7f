/**
 * What a fork may hand out: only what its readers may read. A fork can be asked for any object
 * of a store it borrows from by id (git's protocol v2 does not check reachability), so commits a
 * private parent receives after the fork must not be in reach of the fork: not over git, not as
 * an archive. Covered: a collaborator's fork of a private repository after the collaborator
 * lost access, and forks of a public repository that is then made private.
 */
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { auth } from '../support/http.ts';
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

async function api(method: string, path: string, as: string, body?: object): Promise<number> {
  const response = await fetch(`${kiln.url}/api/v1${path}`, {
    method,
    headers: { ...auth.token(as), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Pushes one commit with `files` to `main` of owner's repository; returns its id. */
async function pushCommit(name: string, files: Record<string, string>): Promise<string> {
  const clone = await git.clone(repoUrl(kiln.url, owner.handle, name, { token, as: 'password' }));
  const sha = await git.commit(clone, files);
  await git.ok(['push', '-q', 'origin', 'HEAD:main'], { cwd: clone });
  return sha;
}

/** Fetches one object by id from a repository, over protocol v2; resolves to git's result. */
async function fetchById(url: string, sha: string) {
  const into = await git.init();
  return git.run(['-c', 'protocol.version=2', 'fetch', '-q', url, sha], { cwd: into });
}

describe('forks and private parents', () => {
  it("a private parent's later commits are out of reach of a fork whose owner lost access", async () => {
    const parent = await makeRepo(kiln, owner, { name: 'secret', private: true, autoInit: true });
    const reader = await kiln.make.userWithToken();
    const collaborators = `/repos/${parent.owner}/${parent.name}/collaborators`;
    expect(
      await api('PUT', `${collaborators}/${reader.user.handle}`, token, { permission: 'read' }),
    ).toBe(204);
    expect(await api('POST', `/repos/${parent.owner}/${parent.name}/forks`, reader.token)).toBe(
      202,
    );
    expect(await api('DELETE', `${collaborators}/${reader.user.handle}`, token)).toBe(204);

    const later = await pushCommit(parent.name, { 'plan.txt': 'after the revocation\n' });

    const forkUrl = repoUrl(kiln.url, reader.user.handle, 'secret', {
      token: reader.token,
      as: 'password',
    });
    const fetched = await fetchById(forkUrl, later);
    expect(fetched.code).not.toBe(0);
    const archive = await fetch(
      `${kiln.url}/${reader.user.handle}/secret/archive/${later}.tar.gz`,
      { headers: auth.token(reader.token) },
    );
    await archive.arrayBuffer();
    expect(archive.status).toBe(404);
    // What the fork had stays: it clones, whole.
    const clone = await git.clone(forkUrl);
    expect(await git.ok(['fsck', '--no-progress', '--no-dangling'], { cwd: clone })).toBe('');
    // The owner, who may read the parent, still gets the commit from the parent itself.
    const own = repoUrl(kiln.url, parent.owner, parent.name, { token, as: 'password' });
    expect((await fetchById(own, later)).code).toBe(0);
  });

  it('forks of a public repository stop sharing its objects when it is made private', async () => {
    const parent = await makeRepo(kiln, owner, { name: 'opened', autoInit: true });
    const before = await pushCommit(parent.name, { 'public.txt': 'public\n' });
    const forker = await kiln.make.userWithToken();
    expect(await api('POST', `/repos/${parent.owner}/${parent.name}/forks`, forker.token)).toBe(
      202,
    );
    // A fork of that fork, borrowing from it in turn.
    const third = await kiln.make.userWithToken();
    expect(await api('POST', `/repos/${forker.user.handle}/opened/forks`, third.token)).toBe(202);

    const path = `/repos/${parent.owner}/${parent.name}`;
    expect(await api('PATCH', path, token, { private: true })).toBe(200);
    const later = await pushCommit(parent.name, { 'plan.txt': 'private now\n' });

    for (const [who, as] of [
      [forker.user.handle, forker.token],
      [third.user.handle, third.token],
    ] as const) {
      const url = repoUrl(kiln.url, who, 'opened', { token: as, as: 'password' });
      expect((await fetchById(url, later)).code).not.toBe(0);
      // Everything the fork reached still comes, now from its own objects.
      expect((await fetchById(url, before)).code).toBe(0);
      const clone = await git.clone(url);
      expect(await git.ok(['fsck', '--no-progress', '--no-dangling'], { cwd: clone })).toBe('');
    }
  });
});
