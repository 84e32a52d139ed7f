/**
 * Smart HTTP with the real git client: anonymous clones of public repositories, the Basic
 * challenge for private ones and tokens as URL username or password, pushes of every kind
 * (fast-forward, force, branch deletion, tags), repositories with and without `.git` in the URL,
 * empty repositories, and the headers of the advertisement.
 */
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { rfc3339 } from '../../src/lib/time.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { basic, makeRepo } from './fixtures.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
useWorld({ people: ['owner'] }, (world) => {
  ({ kiln, git } = world);
  ({ user: owner, token } = world.people.owner);
});

describe('clone', () => {
  it('clones a public repository anonymously, with and without .git', async () => {
    const repo = await makeRepo(kiln, owner, { autoInit: true });
    for (const suffix of ['.git', '']) {
      const dir = await git.clone(repoUrl(kiln.url, repo.owner, repo.name, undefined, suffix));
      expect(await git.ok(['log', '--format=%s'], { cwd: dir })).toBe('Initial commit');
      expect(await git.ok(['ls-files'], { cwd: dir })).toBe('README.md');
    }
  });

  it('clones an empty repository and pushes its first commit', async () => {
    const repo = await makeRepo(kiln, owner);
    const auth = { token, as: 'password' } as const;
    const result = await git.run(['clone', repoUrl(kiln.url, repo.owner, repo.name, auth), 'x'], {
      cwd: await git.tempDir(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('empty repository');
    const work = await git.init();
    const sha = await git.commit(work, { 'a.txt': 'a\n' }, 'first');
    await git.ok(['push', '-q', repoUrl(kiln.url, repo.owner, repo.name, auth), 'main'], {
      cwd: work,
    });
    const dir = await git.clone(repoUrl(kiln.url, repo.owner, repo.name));
    expect(await git.ok(['rev-parse', 'HEAD'], { cwd: dir })).toBe(sha);
  });

  it('challenges anonymous clones of a private repository, then accepts the token', async () => {
    const repo = await makeRepo(kiln, owner, { private: true, autoInit: true });
    const infoRefs = `${kiln.url}/${repo.owner}/${repo.name}.git/info/refs?service=git-upload-pack`;
    const challenge = await fetch(infoRefs);
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toBe('Basic realm="Kiln"');

    const anonymous = await git.fails(['clone', repoUrl(kiln.url, repo.owner, repo.name), 'x'], {
      cwd: await git.tempDir(),
    });
    expect(anonymous.stderr).toMatch(/could not read Username|Authentication failed/);

    for (const as of ['username', 'password'] as const) {
      const dir = await git.clone(repoUrl(kiln.url, repo.owner, repo.name, { token, as }));
      expect(await git.ok(['ls-files'], { cwd: dir })).toBe('README.md');
    }
  });

  it('refuses a wrong token', async () => {
    const repo = await makeRepo(kiln, owner, { private: true, autoInit: true });
    for (const as of ['username', 'password'] as const) {
      const url = repoUrl(kiln.url, repo.owner, repo.name, { token: 'f'.repeat(40), as });
      const result = await git.fails(['clone', url, 'x'], { cwd: await git.tempDir() });
      expect(result.stderr).toContain('Authentication failed');
    }
    // A wrong token that is sent anyway is refused even where none is needed. (git itself only
    // sends credentials after a challenge, so this one is a plain request.)
    const open = await makeRepo(kiln, owner, { autoInit: true });
    const response = await fetch(
      `${kiln.url}/${open.owner}/${open.name}.git/info/refs?service=git-upload-pack`,
      { headers: basic('f'.repeat(40)) },
    );
    expect(response.status).toBe(401);
  });

  it('sends advertisements with no-cache headers and the right content type', async () => {
    const repo = await makeRepo(kiln, owner, { autoInit: true });
    for (const service of ['git-upload-pack', 'git-receive-pack']) {
      const response = await fetch(
        `${kiln.url}/${repo.owner}/${repo.name}.git/info/refs?service=${service}`,
        { headers: basic(token) },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(`application/x-${service}-advertisement`);
      expect(response.headers.get('cache-control')).toContain('no-cache');
      expect(response.headers.get('expires')).toBe('Fri, 01 Jan 1980 00:00:00 GMT');
      expect(response.headers.get('etag')).toBeNull();
      expect(response.headers.get('last-modified')).toBeNull();
      const body = await response.text();
      expect(
        body.startsWith(
          `001${service === 'git-upload-pack' ? 'e' : 'f'}# service=${service}\n0000`,
        ),
      ).toBe(true);
    }
  });

  it('refuses dumb HTTP with a clear status', async () => {
    const repo = await makeRepo(kiln, owner, { autoInit: true });
    for (const path of ['info/refs', 'HEAD', 'objects/info/packs', 'info/refs?service=git-foo']) {
      const response = await fetch(`${kiln.url}/${repo.owner}/${repo.name}.git/${path}`);
      expect(response.status).toBe(403);
      expect(await response.text()).toMatch(/Dumb HTTP is not supported/);
    }
  });
});

describe('push', () => {
  const pushUrl = (repo: { owner: string; name: string }) =>
    repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'username' });

  it('pushes, force-pushes, deletes branches and pushes tags', async () => {
    const repo = await makeRepo(kiln, owner);
    const url = pushUrl(repo);
    const work = await git.init();
    const first = await git.commit(work, { 'a.txt': '1\n' }, 'one');
    const second = await git.commit(work, { 'a.txt': '2\n' }, 'two');
    await git.ok(['push', '-q', url, 'main', 'main:refs/heads/feature/x'], { cwd: work });

    const remote = async () => {
      const lines = (await git.ok(['ls-remote', url])).split('\n').filter(Boolean);
      return new Map(lines.map((line) => line.split('\t').reverse() as [string, string]));
    };
    expect((await remote()).get('refs/heads/main')).toBe(second);
    expect((await remote()).get('refs/heads/feature/x')).toBe(second);

    // A rewind needs --force.
    await git.ok(['reset', '-q', '--hard', first], { cwd: work });
    const rejected = await git.fails(['push', url, 'main'], { cwd: work });
    expect(rejected.stderr).toMatch(/non-fast-forward|fetch first|rejected/);
    await git.ok(['push', '-q', '--force', url, 'main'], { cwd: work });
    expect((await remote()).get('refs/heads/main')).toBe(first);

    await git.ok(['push', '-q', url, '--delete', 'feature/x'], { cwd: work });
    expect((await remote()).has('refs/heads/feature/x')).toBe(false);

    await git.ok(['tag', 'v1.0', first], { cwd: work });
    await git.ok(['tag', '-a', '-m', 'release', 'v2.0', second], { cwd: work });
    await git.ok(['push', '-q', url, '--tags'], { cwd: work });
    const refs = await remote();
    expect(refs.get('refs/tags/v1.0')).toBe(first);
    expect(refs.get('refs/tags/v2.0^{}')).toBe(second);

    const dir = await git.clone(repoUrl(kiln.url, repo.owner, repo.name));
    expect(await git.ok(['tag', '--list'], { cwd: dir })).toBe('v1.0\nv2.0');
    expect(await git.ok(['fsck', '--no-progress'], { cwd: dir })).toBe('');
  });

  it('asks anonymous pushers for credentials, even on public repositories', async () => {
    const repo = await makeRepo(kiln, owner, { autoInit: true });
    const response = await fetch(
      `${kiln.url}/${repo.owner}/${repo.name}.git/info/refs?service=git-receive-pack`,
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="Kiln"');
    const work = await git.clone(repoUrl(kiln.url, repo.owner, repo.name));
    await git.commit(work, { 'b.txt': 'b\n' });
    await git.fails(['push', 'origin', 'main'], { cwd: work });
    await git.ok(['push', '-q', pushUrl(repo), 'main'], { cwd: work });
  });

  it('updates the repository after a push (empty flag, updated_at)', async () => {
    const repo = await makeRepo(kiln, owner);
    const before = await (
      await fetch(`${kiln.url}/api/v1/repos/${repo.owner}/${repo.name}`)
    ).json();
    expect(before.empty).toBe(true);
    const work = await git.init();
    await git.commit(work, { 'a.txt': 'a\n' });
    // Times are written at second precision: let the clock leave the second of the creation.
    await expect.poll(() => rfc3339(new Date()), { interval: 20 }).not.toBe(before.updated_at);
    await handledAfter(repo.name, () =>
      git.ok(['push', '-q', pushUrl(repo), 'main'], { cwd: work }),
    );
    const after = await (await fetch(`${kiln.url}/api/v1/repos/${repo.owner}/${repo.name}`)).json();
    expect(after.empty).toBe(false);
    expect(after.default_branch).toBe('main');
    expect(after.updated_at > before.updated_at).toBe(true);
    expect(after.created_at).toBe(before.created_at);
  });

  it('makes the first pushed branch the default when the default does not exist', async () => {
    const repo = await makeRepo(kiln, owner);
    const work = await git.init('dev');
    const tip = await git.commit(work, { 'a.txt': 'a\n' });
    await git.ok(['branch', 'feature'], { cwd: work });
    await handledAfter(repo.name, () =>
      git.ok(['push', '-q', pushUrl(repo), 'feature', 'dev'], { cwd: work }),
    );
    const view = await (await fetch(`${kiln.url}/api/v1/repos/${repo.owner}/${repo.name}`)).json();
    expect(view.default_branch).toBe('dev');
    const clone = await git.clone(repoUrl(kiln.url, repo.owner, repo.name));
    expect(await git.ok(['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: clone })).toBe('dev');
    expect(await git.ok(['rev-parse', 'HEAD'], { cwd: clone })).toBe(tip);

    // Once the default exists, new branches leave it alone.
    await git.ok(['branch', 'another'], { cwd: work });
    await handledAfter(repo.name, () =>
      git.ok(['push', '-q', pushUrl(repo), 'another'], { cwd: work }),
    );
    const again = await (await fetch(`${kiln.url}/api/v1/repos/${repo.owner}/${repo.name}`)).json();
    expect(again.default_branch).toBe('dev');
  });
});

/** Runs `push` and resolves once Kiln has handled the push it makes to repository `name`. */
async function handledAfter(name: string, push: () => Promise<unknown>): Promise<void> {
  const handled = new Promise<void>((resolve) => {
    let waiting = true;
    kiln.app.events.subscribe('push', async ({ repo }) => {
      if (waiting && repo.name === name) {
        waiting = false;
        resolve();
      }
    });
  });
  await push();
  await handled;
}
