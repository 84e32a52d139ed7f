/**
 * A push cannot create a branch or tag git itself would refuse: `refs/heads/HEAD` and
 * `refs/tags/HEAD` are turned down by the pre-receive hook with a line the git client prints,
 * and nothing else in the push lands. `HEAD` deeper in a name stays an ordinary branch.
 */
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
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

describe('pushing a ref named HEAD', () => {
  it('is refused with a clear message, for branches and tags', async () => {
    const repo = await makeRepo(kiln, owner);
    const url = repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });
    const work = await git.init();
    await git.commit(work, { 'a.txt': '1\n' }, 'one');
    await git.ok(['push', '-q', url, 'main'], { cwd: work });

    const branch = await git.fails(['push', url, 'main:refs/heads/HEAD'], { cwd: work });
    expect(branch.stderr).toContain(
      "kiln: refusing 'refs/heads/HEAD': 'HEAD' is not a valid branch or tag name",
    );
    expect(branch.stderr).toMatch(/pre-receive hook declined/);

    const tag = await git.fails(['push', url, 'main:refs/tags/HEAD'], { cwd: work });
    expect(tag.stderr).toContain("kiln: refusing 'refs/tags/HEAD'");

    await git.ok(['push', '-q', url, 'main:refs/heads/feature/HEAD'], { cwd: work });
    const refs = await git.ok(['ls-remote', url]);
    expect(refs).toContain('refs/heads/feature/HEAD');
    expect(refs).not.toMatch(/refs\/(heads|tags)\/HEAD$/m);
  });
});
