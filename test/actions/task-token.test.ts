/**
 * The task token a runner receives (GITHUB_TOKEN / GITEA_TOKEN / github.token) is a real git
 * credential for its own repository, private or not, while the task runs, and for nothing else:
 * not another repository, not a push, not the REST API, and not after the task ends.
 */
import { describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { makeRepo } from '../git/fixtures.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;
useWorld({}, (world) => {
  ({ kiln, git } = world);
});

describe('the task token', () => {
  it('clones its private repository while the task runs, and nothing else, then dies', async () => {
    const { user, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, user, { private: true });
    const other = await makeRepo(kiln, user, { private: true, autoInit: true });
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/ci.yml':
        'on: push\njobs:\n  a:\n    runs-on: token-box\n    steps: [{run: a}]\n',
    });
    const ownerUrl = repoUrl(kiln.url, user.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', ownerUrl, 'HEAD:refs/heads/main'], { cwd: dir });
    const runner = await ReplayRunner.register(kiln, { labels: ['token-box'] });
    const task = await runner.next();
    const taskToken = task.secrets.GITHUB_TOKEN ?? '';
    expect(taskToken).toMatch(/^[0-9a-f]{40}$/);
    const asTask = (repo: string) =>
      repoUrl(kiln.url, user.handle, repo, { token: taskToken, as: 'password' });

    const clone = await git.clone(asTask(name));
    expect(await git.ok(['log', '-1', '--format=%s'], { cwd: clone })).toBe('change');
    expect((await git.run(['ls-remote', asTask(other.name)])).code).not.toBe(0);
    await git.commit(clone, { 'c.txt': 'c' });
    expect(
      (await git.run(['push', '-q', asTask(name), 'HEAD:refs/heads/main'], { cwd: clone })).code,
    ).not.toBe(0);
    const api = await fetch(`${kiln.url}/api/v1/repos/${user.handle}/${name}`, {
      headers: { authorization: `token ${taskToken}` },
    });
    expect(api.status).toBe(401);

    await runner.run(task, { steps: [{ lines: ['done'], result: Result.SUCCESS }] });
    const after = await git.run(['ls-remote', asTask(name)]);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toMatch(/Authentication failed|401|could not read/i);
  });
});
