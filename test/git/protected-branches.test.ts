/**
 * Protected branches: the Gitea-compatible REST endpoints that manage them (admins only, 404 to
 * those who may not see the repository) and what a protected branch does to real pushes: normal
 * pushes pass, force pushes and deletion are refused with the pre-receive hook's message, and
 * other branches stay unrestricted.
 */
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

type Repo = { owner: string; name: string };
const api = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(`${kiln.url}/api/v1${path}`, {
    ...init,
    headers: {
      ...(init.token ? auth.token(init.token) : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
  });
const protections = (repo: Repo) => `/repos/${repo.owner}/${repo.name}/branch_protections`;
const protect = (repo: Repo, body: object, as = token) =>
  api(protections(repo), { method: 'POST', body: JSON.stringify(body), token: as });

describe('branch protection REST', () => {
  it('creates, lists, gets and deletes protections in Gitea shape', async () => {
    const repo = await makeRepo(kiln, owner, { autoInit: true });
    expect(await json(await api(protections(repo), { token }))).toEqual([]);

    const created = await protect(repo, { rule_name: 'main' });
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(body).toMatchObject({
      branch_name: 'main',
      rule_name: 'main',
      enable_push: true,
      enable_push_whitelist: false,
      push_whitelist_usernames: [],
      status_check_contexts: [],
      required_approvals: 0,
      protected_file_patterns: '',
    });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(body.updated_at).toBe(body.created_at);

    // The deprecated branch_name works too, and names may hold slashes.
    expect((await protect(repo, { branch_name: 'release/1.0' })).status).toBe(201);
    const list = await json(await api(protections(repo), { token }));
    expect(list.map((p: { rule_name: string }) => p.rule_name)).toEqual(['main', 'release/1.0']);

    for (const path of ['release/1.0', 'release%2F1.0']) {
      const one = await api(`${protections(repo)}/${path}`, { token });
      expect(one.status).toBe(200);
      expect((await json(one)).branch_name).toBe('release/1.0');
    }
    expect(
      (await api(`${protections(repo)}/release%2F1.0`, { method: 'DELETE', token })).status,
    ).toBe(204);
    expect((await api(`${protections(repo)}/release/1.0`, { token })).status).toBe(404);
    expect(
      (await api(`${protections(repo)}/release/1.0`, { method: 'DELETE', token })).status,
    ).toBe(404);
    expect((await api(`${protections(repo)}/nothing`, { token })).status).toBe(404);
  });

  it('refuses duplicates (403, as Gitea) and bad names (422)', async () => {
    const repo = await makeRepo(kiln, owner);
    expect((await protect(repo, { rule_name: 'main' })).status).toBe(201);
    const duplicate = await protect(repo, { branch_name: 'main' });
    expect(duplicate.status).toBe(403);
    expect((await json(duplicate)).message).toBe('Branch protection already exist');
    for (const name of ['release/[', 'a..b', '-x', 'has space', 'x.lock', '']) {
      const response = await protect(repo, { rule_name: name });
      expect(response.status, name).toBe(422);
      expect((await json(response)).message).toBeTruthy();
    }
    expect((await protect(repo, {})).status).toBe(422);
  });

  it('is for repository admins only; invisible repositories are 404', async () => {
    const repo = await makeRepo(kiln, owner, { autoInit: true });
    const hidden = await makeRepo(kiln, owner, { private: true, autoInit: true });
    const reader = await kiln.make.userWithToken();
    const writer = await kiln.make.userWithToken();
    const admin = await kiln.make.userWithToken();
    for (const target of [repo, hidden]) {
      await kiln.app.services.collaborators.put(
        owner,
        target.owner,
        target.name,
        reader.user.handle,
        'read',
      );
      await kiln.app.services.collaborators.put(
        owner,
        target.owner,
        target.name,
        writer.user.handle,
        'write',
      );
      await kiln.app.services.collaborators.put(
        owner,
        target.owner,
        target.name,
        admin.user.handle,
        'admin',
      );
    }
    const outsider = await kiln.make.userWithToken();

    expect((await api(protections(repo))).status).toBe(401);
    expect(await protect(repo, { rule_name: 'x' }, '')).toHaveProperty('status', 401);
    expect((await api(protections(hidden))).status).toBe(404);
    expect((await api(protections(hidden), { token: outsider.token })).status).toBe(404);
    expect((await protect(hidden, { rule_name: 'x' }, outsider.token)).status).toBe(404);
    expect((await api(protections(repo), { token: outsider.token })).status).toBe(403);
    for (const who of [reader, writer]) {
      expect((await api(protections(hidden), { token: who.token })).status).toBe(403);
      expect((await protect(hidden, { rule_name: 'x' }, who.token)).status).toBe(403);
    }
    expect((await protect(hidden, { rule_name: 'by-admin' }, admin.token)).status).toBe(201);
    expect((await api(`${protections(hidden)}/by-admin`, { token: writer.token })).status).toBe(
      403,
    );
    expect(
      (await api(`${protections(hidden)}/by-admin`, { method: 'DELETE', token: writer.token }))
        .status,
    ).toBe(403);
    expect(
      (await api(`${protections(hidden)}/by-admin`, { method: 'DELETE', token: admin.token }))
        .status,
    ).toBe(204);
  });
});

describe('pushing to protected branches', () => {
  it('allows fast-forwards, refuses force pushes and deletion with the hook message', async () => {
    const repo = await makeRepo(kiln, owner);
    const url = repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });
    const work = await git.init();
    const first = await git.commit(work, { 'a.txt': '1\n' }, 'one');
    await git.ok(['push', '-q', url, 'main', 'main:free'], { cwd: work });
    expect((await protect(repo, { rule_name: 'main' })).status).toBe(201);

    const second = await git.commit(work, { 'a.txt': '2\n' }, 'two');
    await git.ok(['push', '-q', url, 'main'], { cwd: work });

    await git.ok(['reset', '-q', '--hard', first], { cwd: work });
    const rewritten = await git.commit(work, { 'a.txt': 'other\n' }, 'rewrite');
    const force = await git.fails(['push', '--force', url, 'main'], { cwd: work });
    expect(force.stderr).toContain(
      "kiln: refusing to force-push protected branch 'main' (not a fast-forward)",
    );
    expect(force.stderr).toMatch(/pre-receive hook declined/);

    const remove = await git.fails(['push', url, '--delete', 'main'], { cwd: work });
    expect(remove.stderr).toContain("kiln: refusing to delete protected branch 'main'");

    const heads = await git.ok(['ls-remote', '--heads', url]);
    expect(heads).toContain(`${second}\trefs/heads/main`);

    // An unprotected branch in the same repository may be rewound and deleted.
    await git.ok(['push', '-q', '--force', url, `${rewritten}:refs/heads/free`], { cwd: work });
    await git.ok(['push', '-q', url, '--delete', 'free'], { cwd: work });

    // Lifting the protection lifts the refusal.
    expect((await api(`${protections(repo)}/main`, { method: 'DELETE', token })).status).toBe(204);
    await git.ok(['push', '-q', '--force', url, 'main'], { cwd: work });
    expect(await git.ok(['ls-remote', '--heads', url])).toContain(`${rewritten}\trefs/heads/main`);
  });

  it('refuses every protected ref of a mixed push and reports each', async () => {
    const repo = await makeRepo(kiln, owner);
    const url = repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'username' });
    const work = await git.init();
    const base = await git.commit(work, { 'a.txt': '1\n' });
    await git.ok(['push', '-q', url, 'main', 'main:stable'], { cwd: work });
    await protect(repo, { rule_name: 'main' });
    await protect(repo, { rule_name: 'stable' });
    const ahead = await git.commit(work, { 'a.txt': '2\n' });
    await git.ok(['push', '-q', url, 'main'], { cwd: work });
    await git.ok(['reset', '-q', '--hard', base], { cwd: work });
    await git.commit(work, { 'a.txt': '3\n' });
    const result = await git.fails(['push', '--force', url, 'main', ':stable'], { cwd: work });
    expect(result.stderr).toContain("refusing to force-push protected branch 'main'");
    expect(result.stderr).toContain("refusing to delete protected branch 'stable'");
    expect(await git.ok(['ls-remote', '--heads', url])).toBe(
      `${ahead}\trefs/heads/main\n${base}\trefs/heads/stable`,
    );
  });
});
