/**
 * Git over SSH with OpenSSH's own `ssh` and `git` against a real server on 127.0.0.1: keys added
 * through the API, clone, push and fetch in protocol v0 and v2, the same access matrix as smart
 * HTTP (a private repository refused exactly as a missing one), deploy keys, and the ways in
 * that close: a disabled account, a removed key, a user other than `git`, other commands.
 */
import { describe, expect, it } from 'vitest';
import type { ServedSsh } from '../../src/ssh/serve-ssh.ts';
import { ACCESS_MATRIX, type Visibility } from '../git/fixtures.ts';
import type { GitClient } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import type { Person } from '../support/world.ts';
import {
  type KeyPair,
  makeKeyPair,
  runSsh,
  sshGitEnv,
  sshUrl,
  useSshWorld,
} from './ssh-support.ts';

const WHO = ['stranger', 'read', 'write', 'admin', 'owner'] as const;
type Who = (typeof WHO)[number];

let kiln: TestServer;
let git: GitClient;
let ssh: ServedSsh;
let people: Record<Who, Person>;
const keys = new Map<Who, KeyPair>();
const names: Record<Visibility, string> = { public: 'open', private: 'secret' };

useSshWorld(
  {
    people: [...WHO],
    repos: [
      { owner: 'owner', name: 'open', autoInit: true },
      { owner: 'owner', name: 'secret', private: true, autoInit: true },
    ],
    timeoutMs: 60_000,
  },
  async (world, served) => {
    ({ kiln, git } = world);
    people = world.people;
    ssh = served;
    for (const who of WHO) {
      const pair = makeKeyPair();
      keys.set(who, pair);
      const added = await apiCall(kiln.url, '/user/keys', {
        method: 'POST',
        token: people[who].token,
        body: { title: who, key: pair.publicKey },
      });
      expect(added.status).toBe(201);
    }
    const owner = people.owner.user;
    for (const level of ['read', 'write', 'admin'] as const) {
      for (const name of Object.values(names)) {
        await kiln.app.services.collaborators.put(
          owner,
          owner.handle,
          name,
          people[level].user.handle,
          level,
        );
      }
    }
  },
);
const keyOf = (who: Who): KeyPair => keys.get(who) as KeyPair;
const url = (name: string, owner = people.owner.user.handle) => sshUrl(ssh.port, owner, name);
const as = (key: KeyPair, env: Record<string, string> = {}) => ({
  env: { ...sshGitEnv(key, ssh.port), ...env },
});

/** A work tree with one new commit on `main`, unrelated to anything on the server. */
async function commitOfMyOwn(file: string): Promise<string> {
  const dir = await git.init();
  await git.commit(dir, { [file]: `${file}\n` });
  return dir;
}

describe('a session', () => {
  it('greets a key’s owner by name and offers no shell', async () => {
    const greeted = await runSsh(keyOf('read'), ssh.port);
    expect(greeted.code).toBe(1);
    expect(greeted.stderr).toBe(
      `Hi ${people.read.user.handle}! You've successfully authenticated, but Kiln does not provide shell access.\n`,
    );
  });

  it('runs git’s commands and no others', async () => {
    for (const command of ['ls', 'git-upload-pack', 'sh -c id', 'git-lfs-transfer x']) {
      const refused = await runSsh(keyOf('owner'), ssh.port, command);
      expect(refused.code, command).not.toBe(0);
      expect(refused.stdout, command).toBe('');
    }
    const unknown = await runSsh(keyOf('owner'), ssh.port, 'ls');
    expect(unknown.stderr).toBe('Kiln: this command is not served here.\n');
  });
});

describe('clone, push and fetch', () => {
  for (const version of ['0', '2']) {
    it(`work in protocol v${version}`, async () => {
      const key = keyOf('write');
      const env = { GIT_TRACE_PACKET: '1' };
      const listed = await git.run(
        ['-c', `protocol.version=${version}`, 'ls-remote', url('open')],
        as(key, env),
      );
      expect(listed.code).toBe(0);
      expect(listed.stderr.includes('version 2')).toBe(version === '2');

      const work = await git.clone(url('open'), ['-c', `protocol.version=${version}`], as(key));
      const branch = `v${version}-${Date.now()}`;
      await git.ok(['checkout', '-q', '-b', branch], { cwd: work });
      const pushed = await git.commit(work, { [`${branch}.txt`]: 'over ssh\n' });
      await git.ok(['-c', `protocol.version=${version}`, 'push', '-q', 'origin', branch], {
        cwd: work,
        ...as(key),
      });
      // The push is the repository's now, over HTTP as over SSH.
      const branchRecord = await apiCall(
        kiln.url,
        `/repos/${people.owner.user.handle}/open/branches/${branch}`,
        { token: people.owner.token },
      );
      expect(branchRecord.body.commit.id).toBe(pushed);

      const other = await git.clone(url('open'), [], as(keyOf('owner')));
      await git.ok(['fetch', '-q', 'origin', branch], { cwd: work, ...as(key) });
      await git.ok(['-c', `protocol.version=${version}`, 'fetch', '-q', 'origin', branch], {
        cwd: other,
        ...as(keyOf('owner')),
      });
      expect(await git.ok(['rev-parse', 'FETCH_HEAD'], { cwd: other })).toBe(pushed);
    });
  }

  it('serves `git archive --remote`', async () => {
    const dir = await git.tempDir();
    const archived = await git.run(
      ['archive', '--format=tar', `--remote=${url('secret')}`, 'main', 'README.md'],
      { cwd: dir, ...as(keyOf('read')) },
    );
    expect(archived.code).toBe(0);
    expect(archived.stdout).toContain('README.md');
  });
});

describe('access, as over HTTP', () => {
  const cases = (['public', 'private'] as const).flatMap((visibility) =>
    WHO.map((who) => ({ visibility, who, ...ACCESS_MATRIX[visibility][who] })),
  );

  it.each(cases)('$visibility repository, $who: clone $clone, push $push', async (row) => {
    const { visibility, who } = row;
    const key = keyOf(who);
    const name = names[visibility];
    const read = await git.run(['ls-remote', url(name)], as(key));
    expect(read.code === 0, read.stderr).toBe(row.clone === 200);
    const work = await commitOfMyOwn(`${who}.txt`);
    const push = await git.run(['push', url(name), `HEAD:refs/heads/${visibility}-${who}`], {
      cwd: work,
      ...as(key),
    });
    expect(push.code === 0, push.stderr).toBe(row.push === 200);
    if (row.push === 403) expect(push.stderr).toContain('you need write access');
    if (row.clone === 404) {
      // Word for word what a repository that does not exist gets.
      const missing = await git.run(['ls-remote', url('nothing-here')], as(key));
      expect(read.stderr.replace(name, 'NAME')).toBe(
        missing.stderr.replace('nothing-here', 'NAME'),
      );
    }
  });

  it('refuses a path that names no repository as a missing one', async () => {
    for (const path of ['/', 'x', 'a/b/c', '../../etc/passwd', `${people.owner.user.handle}/`]) {
      const refused = await runSsh(keyOf('owner'), ssh.port, `git-upload-pack '${path}'`);
      expect(refused.code, path).toBe(1);
      expect(refused.stderr, path).toMatch(/^Kiln: repository does not exist/);
    }
    const bare = await git.run(
      ['ls-remote', `ssh://git@127.0.0.1:${ssh.port}/${people.owner.user.handle}/open`],
      as(keyOf('read')),
    );
    expect(bare.code).toBe(0);
  });
});

describe('keys that stop working', () => {
  it('refuses a key that was removed, a disabled account, and users other than git', async () => {
    const person = await kiln.make.userWithToken();
    const pair = makeKeyPair();
    const added = await apiCall(kiln.url, '/user/keys', {
      method: 'POST',
      token: person.token,
      body: { title: 'soon gone', key: pair.publicKey },
    });
    expect((await git.run(['ls-remote', url('open')], as(pair))).code).toBe(0);

    await kiln.app.services.users.setDisabled(person.user, true);
    const disabled = await git.run(['ls-remote', url('open')], as(pair));
    expect(disabled.code).not.toBe(0);
    expect(disabled.stderr).toContain('Permission denied (publickey)');
    await kiln.app.services.users.setDisabled(person.user, false);
    expect((await git.run(['ls-remote', url('open')], as(pair))).code).toBe(0);

    const other = await git.run(['ls-remote', url('open').replace('git@', 'root@')], as(pair));
    expect(other.stderr).toContain('Permission denied (publickey)');

    await apiCall(kiln.url, `/user/keys/${added.body.id}`, {
      method: 'DELETE',
      token: person.token,
    });
    const removed = await git.run(['ls-remote', url('open')], as(pair));
    expect(removed.stderr).toContain('Permission denied (publickey)');
  });
});

describe('deploy keys', () => {
  it('read their one repository, and push only when writable', async () => {
    const owner = people.owner;
    const readOnly = makeKeyPair();
    const writable = makeKeyPair();
    for (const [pair, readOnlyFlag] of [
      [readOnly, true],
      [writable, false],
    ] as const) {
      const made = await apiCall(kiln.url, `/repos/${owner.user.handle}/secret/keys`, {
        method: 'POST',
        token: owner.token,
        body: { title: 'deploy', key: pair.publicKey, read_only: readOnlyFlag },
      });
      expect(made.status).toBe(201);
    }
    const greeted = await runSsh(readOnly, ssh.port);
    expect(greeted.stderr).toContain(`Hi ${owner.user.handle}/secret!`);

    expect((await git.run(['ls-remote', url('secret')], as(readOnly))).code).toBe(0);
    // Any other repository, public or not, is missing to a deploy key.
    const elsewhere = await git.run(['ls-remote', url('open')], as(readOnly));
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.stderr).toContain('repository does not exist');

    const work = await commitOfMyOwn('deploy.txt');
    const refused = await git.run(['push', url('secret'), 'HEAD:refs/heads/deployed'], {
      cwd: work,
      ...as(readOnly),
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('this deploy key is read-only');
    const pushed = await git.run(['push', url('secret'), 'HEAD:refs/heads/deployed'], {
      cwd: work,
      ...as(writable),
    });
    expect(pushed.code, pushed.stderr).toBe(0);
  });
});
