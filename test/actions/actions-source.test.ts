/**
 * The instance's actions source and the action owner behind it: `/-/actions/{owner}/{repo}`
 * serves git fetches of an action owner's public repositories to real git (protocol v2 and v0,
 * with and without `.git`) and answers 404 for everything else — private repositories, ordinary
 * owners, pushes. Under the action owner only administrators write: an owner of the
 * organisation or an admin collaborator who is not an administrator can neither push, nor
 * create repositories, nor add collaborators or members.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GitClient } from '../support/git.ts';
import { repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';

const ADMIN = 'source-admin';

let kiln: TestServer;
let git: GitClient;
let people: Record<'member' | 'collaborator' | 'stranger', Person>;
let adminToken: string;
let tagged: string;
useWorld(
  { people: ['member', 'collaborator', 'stranger'], env: { SERVICE_ADMIN_HANDLES: ADMIN } },
  async (world) => {
    ({ kiln, git } = world);
    people = world.people;
    const services = kiln.app.services;
    const { user: admin, token } = await kiln.make.userWithToken({ handle: ADMIN });
    adminToken = token;
    await services.orgs.createOrg({ name: 'actions', owner: admin });
    await services.orgs.addMemberByHandle(admin, 'actions', people.member.user.handle, 'owner');
    await services.repos.create(admin, { name: 'checkout', orgName: 'actions', private: false });
    await services.repos.create(admin, {
      name: 'hidden',
      orgName: 'actions',
      private: true,
      autoInit: true,
    });
    await services.collaborators.put(
      admin,
      'actions',
      'checkout',
      people.collaborator.user.handle,
      'admin',
    );
    await services.repos.create(people.stranger.user, {
      name: 'thing',
      private: false,
      autoInit: true,
    });
    const work = await git.init();
    tagged = await git.commit(work, { 'action.yml': 'runs:\n  using: composite\n  steps: []\n' });
    await git.ok(['tag', 'v1'], { cwd: work });
    const url = repoUrl(kiln.url, 'actions', 'checkout', { token, as: 'password' });
    await git.ok(['push', '-q', url, 'main', 'v1'], { cwd: work });
  },
);

/** What a runner fetches: `{base}/-/actions/{owner}/{repo}{suffix}`. */
const source = (owner: string, repo: string, suffix = '') =>
  `${kiln.url}/-/actions/${owner}/${repo}${suffix}`;

describe('the actions source', () => {
  it('clones and fetches an action owner’s repository with real git', async () => {
    for (const [suffix, version] of [
      ['', '2'],
      ['.git', '0'],
      ['.git', '2'],
    ] as const) {
      const dir = await git.clone(source('actions', 'checkout', suffix), [
        '-c',
        `protocol.version=${version}`,
      ]);
      expect(await git.ok(['rev-parse', 'HEAD'], { cwd: dir })).toBe(tagged);
      expect(await git.ok(['rev-parse', 'v1^{commit}'], { cwd: dir })).toBe(tagged);
    }
    // What Kiln's runner does: a shallow fetch of the tag into an empty repository.
    const empty = await git.init();
    await git.ok(['fetch', '-q', '--depth=1', source('Actions', 'checkout'), 'v1'], { cwd: empty });
    expect(await git.ok(['rev-parse', 'FETCH_HEAD'], { cwd: empty })).toBe(tagged);
  });

  it('answers 404 for anything but a fetch of an action owner’s public repository', async () => {
    const owners = ['actions', 'ACTIONS', people.stranger.user.handle, ADMIN, 'nobody', '-'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...owners),
        fc.constantFrom('checkout', 'hidden', 'thing', 'missing'),
        fc.constantFrom('', '.git'),
        fc.constantFrom('git-upload-pack', 'git-receive-pack', ''),
        fc.constantFrom(undefined, adminToken),
        async (owner, repo, suffix, service, token) => {
          const query = service ? `?service=${service}` : '';
          const response = await fetch(`${source(owner, repo, suffix)}/info/refs${query}`, {
            headers: token ? { authorization: `token ${token}` } : {},
          });
          const served =
            owner.toLowerCase() === 'actions' &&
            repo === 'checkout' &&
            service === 'git-upload-pack';
          expect(response.status, `${owner}/${repo}${suffix} ${service}`).toBe(served ? 200 : 404);
          if (!served) expect(response.headers.get('www-authenticate')).toBeNull();
        },
      ),
      { numRuns: 60 },
    );
    for (const path of ['git-receive-pack', 'HEAD', 'objects/info/packs']) {
      const response = await fetch(`${source('actions', 'checkout', '.git')}/${path}`, {
        method: path === 'git-receive-pack' ? 'POST' : 'GET',
        headers: { 'content-type': 'application/x-git-receive-pack-request' },
        body: path === 'git-receive-pack' ? '0000' : undefined,
      });
      expect(response.status, path).toBe(404);
    }
  });

  it('does not clone private repositories or ordinary owners, and takes no push', async () => {
    // The ordinary address serves the stranger's repository; the actions source does not.
    await git.clone(repoUrl(kiln.url, people.stranger.user.handle, 'thing'));
    const refused = await git.fails([
      'clone',
      '-q',
      source(people.stranger.user.handle, 'thing'),
      await git.tempDir(),
    ]);
    expect(refused.stderr).toMatch(/not found|returned error: 404\b/i);
    await git.fails(['clone', '-q', source('actions', 'hidden'), await git.tempDir()]);
    const work = await git.clone(source('actions', 'checkout'));
    await git.commit(work, { 'index.js': 'evil()' });
    const push = await git.fails(
      ['push', '-q', source('actions', 'checkout'), 'HEAD:refs/tags/v1'],
      { cwd: work },
    );
    expect(push.stderr).toMatch(/not found|returned error: 404\b/i);
  });
});

describe('writing under an action owner', () => {
  it('refuses a non-admin owner of the organisation and an admin collaborator', async () => {
    for (const key of ['member', 'collaborator'] as const) {
      const { token, user } = people[key];
      const work = await git.clone(
        repoUrl(kiln.url, 'actions', 'checkout', { token, as: 'password' }),
      );
      await git.commit(work, { 'index.js': `evil('${key}')` });
      const push = await git.fails(['push', '-q', 'origin', 'HEAD:main', 'HEAD:refs/tags/v2'], {
        cwd: work,
      });
      expect(push.stderr, key).toMatch(/403|write access/);
      const created = await apiCall(kiln.url, '/orgs/actions/repos', {
        method: 'POST',
        token,
        body: { name: `setup-${key}` },
      });
      // An owner of the organisation is told no; a collaborator is no member, so it is not theirs.
      expect(created.status, key).toBe(key === 'member' ? 403 : 404);
      const added = await apiCall(
        kiln.url,
        `/repos/actions/checkout/collaborators/${people.stranger.user.handle}`,
        {
          method: 'PUT',
          token,
          body: { permission: 'write' },
        },
      );
      expect(added.status, key).toBe(403);
      const permission = await apiCall(
        kiln.url,
        `/repos/actions/checkout/collaborators/${user.handle}/permission`,
        { token: adminToken },
      );
      expect(permission.body.permission, key).toBe('read');
    }
    // Nor does the organisation's non-admin owner administer it: no hooks, runners, CI settings.
    const member = people.member.token;
    const hook = await apiCall(kiln.url, '/orgs/actions/hooks', {
      method: 'POST',
      token: member,
      body: { type: 'gitea', config: { url: 'https://hooks.example/x', content_type: 'json' } },
    });
    expect(hook.status).toBe(403);
    const variable = await apiCall(kiln.url, '/orgs/actions/actions/variables/STAGE', {
      method: 'POST',
      token: member,
      body: { value: 'x' },
    });
    expect(variable.status).toBe(403);
    const services = kiln.app.services;
    await expect(
      services.runnerAdmin.createToken(
        { kind: 'user', user: people.member.user },
        { kind: 'organisation', orgId: (await services.orgs.getOrg('actions')).id },
      ),
    ).rejects.toThrow(/only administrators/);
    await expect(
      services.orgs.addMemberByHandle(
        people.member.user,
        'actions',
        people.stranger.user.handle,
        'member',
      ),
    ).rejects.toThrow(/only owners/);
    expect(await services.collaborators.list(undefined, 'actions', 'checkout')).toHaveLength(1);
    await expect(services.repos.get(people.member.user, 'actions', 'setup-member')).rejects.toThrow(
      /does not exist/,
    );
    const ls = await git.ok(['ls-remote', source('actions', 'checkout')]);
    expect(ls).toContain(`${tagged}\trefs/heads/main`);
    expect(ls).not.toContain('refs/tags/v2');
  });

  it('lets an administrator push', async () => {
    const url = repoUrl(kiln.url, 'actions', 'checkout', { token: adminToken, as: 'password' });
    const work = await git.clone(url);
    const next = await git.commit(work, { 'README.md': 'pinned by tag' });
    await git.ok(['push', '-q', 'origin', 'HEAD:refs/tags/v1.1'], { cwd: work });
    expect(await git.ok(['ls-remote', source('actions', 'checkout'), 'refs/tags/v1.1'])).toContain(
      next,
    );
  });
});
