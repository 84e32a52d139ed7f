/**
 * The hook API as Gitea serves it: repository hooks for repository admins (404 on a private
 * repository to outsiders, 403 to those who may only read), organisation hooks for its owners,
 * system hooks for site admins; Gitea's Hook shape, secrets never shown back, unknown types and
 * events refused with 422, edits and deletes by id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Caller, caller, createRepo } from '../api/fixtures.ts';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;
let bob: Caller;

const hook = (url = 'https://hooks.example/in') => ({
  type: 'gitea',
  config: { url, content_type: 'json', secret: 'not shown again' },
  events: ['push', 'pull_request'],
  branch_filter: 'main',
  active: true,
});

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_SECRET_KEY: 'webhook api tests key',
    SERVICE_ADMIN_HANDLES: 'root',
  });
  api = apiClient(kiln);
  alice = await caller(kiln);
  bob = await caller(kiln);
  await createRepo(kiln, alice, 'open');
  await createRepo(kiln, alice, 'hidden', { private: true });
});
afterAll(async () => {
  await kiln?.close();
});

describe('repository hooks', () => {
  it("creates, lists, reads, edits and deletes a hook in Gitea's shape", async () => {
    const base = `/repos/${alice.handle}/open/hooks`;
    const created = await api(base, { token: alice.token, method: 'POST', body: hook() });
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(body).toMatchObject({
      type: 'gitea',
      active: true,
      branch_filter: 'main',
      events: ['push', 'pull_request'],
      config: { url: 'https://hooks.example/in', content_type: 'json' },
    });
    expect(JSON.stringify(body)).not.toContain('not shown again');
    const list = await json(await api(base, { token: alice.token }));
    expect(list.map((one: { id: number }) => one.id)).toEqual([body.id]);
    const edited = await api(`${base}/${body.id}`, {
      token: alice.token,
      method: 'PATCH',
      body: { active: false, events: ['release'], config: { url: 'https://hooks.example/two' } },
    });
    expect(await json(edited)).toMatchObject({
      active: false,
      events: ['release'],
      config: { url: 'https://hooks.example/two', content_type: 'json' },
    });
    expect((await api(`${base}/${body.id}`, { token: alice.token, method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await api(`${base}/${body.id}`, { token: alice.token })).status).toBe(404);
  });

  it('refuses unknown types, events, content types and URLs with 422', async () => {
    const base = `/repos/${alice.handle}/open/hooks`;
    for (const bad of [
      { ...hook(), type: 'telegraph' },
      { ...hook(), events: ['everything'] },
      { ...hook(), config: { url: 'https://x.example', content_type: 'xml' } },
      { ...hook(), config: { url: 'file:///etc/passwd', content_type: 'json' } },
      { ...hook(), config: { content_type: 'json' } },
    ]) {
      const response = await api(base, { token: alice.token, method: 'POST', body: bad });
      expect(response.status).toBe(422);
    }
  });

  it('is 404 on a private repository to outsiders and 403 to those who cannot administer it', async () => {
    expect((await api(`/repos/${alice.handle}/hidden/hooks`, { token: bob.token })).status).toBe(
      404,
    );
    expect((await api(`/repos/${alice.handle}/hidden/hooks`)).status).toBe(404);
    expect((await api(`/repos/${alice.handle}/open/hooks`, { token: bob.token })).status).toBe(403);
    const post = await api(`/repos/${alice.handle}/open/hooks`, {
      token: bob.token,
      method: 'POST',
      body: hook(),
    });
    expect(post.status).toBe(403);
  });

  it("does not reach another repository's hook by its id", async () => {
    const made = await json(
      await api(`/repos/${alice.handle}/hidden/hooks`, {
        token: alice.token,
        method: 'POST',
        body: hook(),
      }),
    );
    const other = await api(`/repos/${alice.handle}/open/hooks/${made.id}`, { token: alice.token });
    expect(other.status).toBe(404);
  });
});

describe('organisation and system hooks', () => {
  it("lets owners manage an organisation's hooks, not its members or outsiders", async () => {
    const owner = await kiln.app.services.users.getUser(alice.handle);
    const org = await kiln.make.org(owner);
    const member = await kiln.app.services.users.getUser(bob.handle);
    await kiln.app.services.orgs.addMember(org, member, 'member');
    const base = `/orgs/${org.handle}/hooks`;
    const created = await api(base, { token: alice.token, method: 'POST', body: hook() });
    expect(created.status).toBe(201);
    expect((await api(base, { token: bob.token })).status).toBe(403);
    const outsider = await caller(kiln);
    expect((await api(base, { token: outsider.token })).status).toBe(404);
  });

  it('keeps system hooks to site admins', async () => {
    const root = await kiln.make.userWithToken({ handle: 'root' });
    expect((await api('/admin/hooks', { token: alice.token })).status).toBe(403);
    const created = await api('/admin/hooks', { token: root.token, method: 'POST', body: hook() });
    expect(created.status).toBe(201);
    expect(await json(await api('/admin/hooks', { token: root.token }))).toHaveLength(1);
  });
});
