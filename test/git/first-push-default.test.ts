/**
 * The first push to an empty repository sets its default branch before the push is answered: a
 * repository that received only `develop` reports `develop` to a client that asks at once, on
 * the REST API, with no waiting between the push and the question.
 */
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
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

describe('the default branch after the first push', () => {
  it('is the pushed branch as soon as the push returns, on twenty fresh repositories', async () => {
    const work = await git.init('develop');
    await git.commit(work, { 'a.txt': '1\n' }, 'one');
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      const repo = await makeRepo(kiln, owner);
      const url = repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });
      await git.ok(['push', '-q', url, 'develop'], { cwd: work });
      const answer = await apiCall(kiln.url, `/repos/${repo.owner}/${repo.name}`, { token });
      seen.push(answer.body.default_branch);
    }
    expect(seen).toEqual(Array(20).fill('develop'));
  }, 120_000);

  it('is the first created branch by name when one push creates several', async () => {
    const work = await git.init('topic');
    await git.commit(work, { 'a.txt': '1\n' }, 'one');
    const repo = await makeRepo(kiln, owner);
    const url = repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });
    await git.ok(['push', '-q', url, 'topic', 'topic:release', 'topic:feature'], { cwd: work });
    const answer = await apiCall(kiln.url, `/repos/${repo.owner}/${repo.name}`, { token });
    expect(answer.body.default_branch).toBe('feature');
  });
});
