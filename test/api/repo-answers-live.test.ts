/**
 * `GET /repos/{owner}/{name}` answers repeated requests from memory, and still shows every change
 * on the very next request: to the repository's row, to who may see it, to its git facts
 * (HEAD and whether any branch exists, changed by git itself), to its parent, to the base URL
 * the request came in on, and (SQLite) writes made by another process on the same file.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { type ApiCall, apiCall, type Json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
let other: User;
let otherToken: string;

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  ({ user: owner, token } = await kiln.make.userWithToken());
  ({ user: other, token: otherToken } = await kiln.make.userWithToken());
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

const api = (path: string, call: ApiCall = {}) => apiCall(kiln.url, path, call);

/** GET twice: the second answer comes from memory when nothing changed, and must agree. */
async function getTwice(fullName: string, as?: string) {
  const first = await api(`/repos/${fullName}`, { token: as });
  const second = await api(`/repos/${fullName}`, { token: as });
  expect(second.status).toBe(first.status);
  expect(second.text).toBe(first.text);
  return second;
}

async function createRepo(name: string, body: object = {}) {
  const created = await api('/user/repos', { method: 'POST', token, body: { name, ...body } });
  expect(created.status).toBe(201);
  return `${owner.handle}/${name}`;
}

/**
 * Resolves once Kiln has handled the next push to `name`: listeners run in order, so by the time
 * this one runs, the push's own effects (the repository's `updated_at`) are written.
 */
function handled(name: string): Promise<void> {
  return new Promise((resolve) => {
    let waiting = true;
    kiln.app.events.subscribe('push', async ({ repo }) => {
      if (waiting && repo.name === name) {
        waiting = false;
        resolve();
      }
    });
  });
}

const gitDir = (name: string) => kiln.app.git.paths.resolve({ owner: owner.handle, name }).path;

describe('a repository answer', () => {
  it('shows an edit on the next request', async () => {
    const fullName = await createRepo('edited', { description: 'before' });
    expect((await getTwice(fullName)).body.description).toBe('before');
    const edited = await api(`/repos/${fullName}`, {
      method: 'PATCH',
      token,
      body: { description: 'after' },
    });
    expect(edited.status).toBe(200);
    expect((await getTwice(fullName)).body.description).toBe('after');
  });

  it('disappears for outsiders the moment it turns private, and comes back', async () => {
    const fullName = await createRepo('turning');
    expect((await getTwice(fullName)).status).toBe(200);
    expect((await getTwice(fullName, otherToken)).status).toBe(200);
    await api(`/repos/${fullName}`, { method: 'PATCH', token, body: { private: true } });
    expect((await getTwice(fullName)).status).toBe(404);
    expect((await getTwice(fullName, otherToken)).status).toBe(404);
    expect((await getTwice(fullName, token)).body.private).toBe(true);
    await api(`/repos/${fullName}`, { method: 'PATCH', token, body: { private: false } });
    expect((await getTwice(fullName)).status).toBe(200);
  });

  it("follows a collaborator's permission as it is granted, changed and taken away", async () => {
    const fullName = await createRepo('shared', { private: true });
    const collaborator = `/repos/${fullName}/collaborators/${other.handle}`;
    expect((await getTwice(fullName, otherToken)).status).toBe(404);
    await api(collaborator, { method: 'PUT', token, body: { permission: 'read' } });
    expect((await getTwice(fullName, otherToken)).body.permissions).toEqual({
      admin: false,
      push: false,
      pull: true,
    });
    await api(collaborator, { method: 'PUT', token, body: { permission: 'write' } });
    expect((await getTwice(fullName, otherToken)).body.permissions.push).toBe(true);
    await api(collaborator, { method: 'DELETE', token });
    expect((await getTwice(fullName, otherToken)).status).toBe(404);
  });

  it('reads HEAD and the branches live, whoever changed them', async () => {
    const fullName = await createRepo('moving');
    expect((await getTwice(fullName)).body).toMatchObject({ empty: true, default_branch: 'main' });

    const work = await git.init();
    await git.commit(work, { 'a.txt': 'a' });
    const url = repoUrl(kiln.url, owner.handle, 'moving', { token, as: 'username' });
    const first = handled('moving');
    await git.ok(['push', '-q', url, 'main', 'main:dev'], { cwd: work });
    await first;
    expect((await getTwice(fullName)).body.empty).toBe(false);

    // git itself, not Kiln, points HEAD elsewhere.
    await git.ok(['--git-dir', gitDir('moving'), 'symbolic-ref', 'HEAD', 'refs/heads/dev']);
    expect((await getTwice(fullName)).body.default_branch).toBe('dev');

    const second = handled('moving');
    await git.ok(['push', '-q', url, ':main'], { cwd: work });
    await second;
    expect((await getTwice(fullName)).body).toMatchObject({ empty: false, default_branch: 'dev' });
    // git refuses to push away the branch HEAD names; removing it in place leaves no branch.
    await git.ok(['--git-dir', gitDir('moving'), 'update-ref', '-d', 'refs/heads/dev']);
    expect((await getTwice(fullName)).body.empty).toBe(true);
  });

  it('is written for the base URL each request came in on', async () => {
    const fullName = await createRepo('hosted');
    const at = (host: string) =>
      new Promise<Json>((resolve, reject) => {
        const request = httpRequest(
          `${kiln.url}/api/v1/repos/${fullName}`,
          { headers: { host } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              text += chunk;
            });
            response.on('end', () => resolve(JSON.parse(text)));
          },
        );
        request.on('error', reject);
        request.end();
      });
    expect((await at('one.example.test')).clone_url).toBe(
      `http://one.example.test/${fullName}.git`,
    );
    expect((await at('two.example.test:8080')).clone_url).toBe(
      `http://two.example.test:8080/${fullName}.git`,
    );
    expect((await at('one.example.test')).clone_url).toBe(
      `http://one.example.test/${fullName}.git`,
    );
  });

  it("shows a fork's parent as it changes and as the viewer may see it", async () => {
    const parent = await createRepo('parent', { auto_init: true });
    const forked = await api(`/repos/${parent}/forks`, { method: 'POST', token: otherToken });
    expect(forked.status).toBe(202);
    const fork = forked.body.full_name as string;
    expect((await getTwice(fork)).body.parent.full_name).toBe(parent);

    await git.ok(['--git-dir', gitDir('parent'), 'branch', 'next', 'main']);
    await git.ok(['--git-dir', gitDir('parent'), 'symbolic-ref', 'HEAD', 'refs/heads/next']);
    expect((await getTwice(fork)).body.parent.default_branch).toBe('next');

    await api(`/repos/${parent}`, { method: 'PATCH', token, body: { private: true } });
    expect((await getTwice(fork)).body).not.toHaveProperty('parent');
    expect((await getTwice(fork, token)).body.parent.private).toBe(true);
  });

  it('shows what another process wrote to the same SQLite file', async (context) => {
    if (kiln.app.database.dialect !== 'sqlite') context.skip();
    const fullName = await createRepo('elsewhere', { description: 'mine' });
    expect((await getTwice(fullName)).body.description).toBe('mine');

    const outside = new DatabaseSync(join(kiln.app.dataDir, 'kiln.db'));
    try {
      outside
        .prepare('update repositories set description = ? where name = ?')
        .run('theirs', 'elsewhere');
    } finally {
      outside.close();
    }
    // Other processes' commits are seen within a millisecond (OTHER_WRITERS_WINDOW_MS).
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await getTwice(fullName)).body.description).toBe('theirs');
  });
});
