/**
 * After a push over SSH the real git client shows Gitea's hint as `remote:` lines, exactly as
 * after one over smart HTTP: where to open a pull for a new branch, the pull already open for
 * it, nothing for the default branch.
 */
import { expect, it } from 'vitest';
import type { ServedSsh } from '../../src/ssh/serve-ssh.ts';
import type { GitClient } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import type { Person } from '../support/world.ts';
import { type KeyPair, makeKeyPair, sshGitEnv, sshUrl, useSshWorld } from './ssh-support.ts';

let kiln: TestServer;
let git: GitClient;
let dev: Person;
let ssh: ServedSsh;
let pair: KeyPair;
let work: string;
useSshWorld(
  { people: ['dev'], repos: [{ owner: 'dev', name: 'hints', autoInit: true }] },
  async (world, served) => {
    ({ kiln, git } = world);
    dev = world.people.dev;
    ssh = served;
    pair = makeKeyPair();
    await kiln.app.services.sshKeys.addUserKey(dev.user, { title: 'laptop', key: pair.publicKey });
    work = await git.tempDir('ssh-hints-');
    const url = sshUrl(ssh.port, dev.user.handle, 'hints');
    await git.ok(['clone', '-q', url, work], { env: sshGitEnv(pair, ssh.port) });
  },
);

/** One commit on `branch` pushed over SSH (protocol `version`); what git printed to stderr. */
async function push(branch: string, version = '0'): Promise<string> {
  await git.ok(['checkout', '-q', '-B', branch], { cwd: work });
  await git.commit(work, { [`${branch}.txt`]: `${Date.now()}\n` }, `Work on ${branch}`);
  const url = sshUrl(ssh.port, dev.user.handle, 'hints');
  const pushed = await git.run(
    ['-c', `protocol.version=${version}`, 'push', url, `HEAD:refs/heads/${branch}`],
    { cwd: work, env: sshGitEnv(pair, ssh.port) },
  );
  expect(pushed.code, pushed.stderr).toBe(0);
  return pushed.stderr;
}

it('prints where to open a pull for a new branch, and nothing for the default branch', async () => {
  const stderr = await push('topic');
  expect(stderr).toContain("remote: Create a new pull request for 'topic':");
  expect(stderr).toContain(
    `remote:   ${kiln.url}/repos/${dev.user.handle}/hints/compare/main...topic`,
  );
  expect(await push('main', '2')).not.toContain('pull request');
});

it('points at the open pull when the pushed branch has one', async () => {
  await push('reviewed');
  const { pull } = await kiln.app.services.pulls.create(dev.user, dev.user.handle, 'hints', {
    title: 'Reviewed',
    head: 'reviewed',
    base: 'main',
  });
  const stderr = await push('reviewed', '2');
  expect(stderr).toContain('remote: Visit the existing pull request:');
  expect(stderr).toContain(
    `remote:   ${kiln.url}/repos/${dev.user.handle}/hints/pulls/${pull.number}`,
  );
});
