/**
 * Labels and commit statuses, stubs per SPEC.md: labels are always `[]`; a ref's combined status
 * is an all-clear for the commit it names, its statuses list is `[]`, an unknown ref is a 404
 * (Renovate reads that as "branch deleted"), and a posted status is echoed under `status`,
 * needs write access, and is not stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addCommit, addTag, apiClient, type Caller, caller, createRepo } from './fixtures.ts';

let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;
let bob: Caller;
let main: string;
let feature: string;

beforeAll(async () => {
  kiln = await startTestServer();
  api = apiClient(kiln);
  alice = await caller(kiln);
  bob = await caller(kiln);
  await createRepo(kiln, alice, 'svc');
  main = await addCommit(kiln, alice.handle, 'svc', 'main');
  feature = await addCommit(kiln, alice.handle, 'svc', 'renovate/lodash-4.x');
  await addTag(kiln, alice.handle, 'svc', 'v1', main);
});
afterAll(async () => {
  await kiln?.close();
});

describe('GET /repos/{owner}/{name}/labels', () => {
  it('is always an empty list with a zero total', async () => {
    const response = await api(`/repos/${alice.handle}/svc/labels`);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual([]);
    expect(response.headers.get('x-total-count')).toBe('0');
  });

  it('is a 404 for a repository the caller cannot see', async () => {
    await createRepo(kiln, alice, 'private-labels', { private: true });
    expect((await api(`/repos/${alice.handle}/private-labels/labels`)).status).toBe(404);
    expect(
      (await api(`/repos/${alice.handle}/private-labels/labels`, { token: alice.token })).status,
    ).toBe(200);
  });
});

describe('GET /repos/{owner}/{name}/commits/{ref}/status', () => {
  it.each([
    ['a branch', 'main', () => main],
    ['a branch with a raw slash', 'renovate/lodash-4.x', () => feature],
    ['a branch with %2F', 'renovate%2Flodash-4.x', () => feature],
    ['a tag', 'v1', () => main],
    ['a full sha', 'MAIN', () => main],
    ['a short sha', 'SHORT', () => main],
  ])('is an all-clear for %s', async (_what, raw, sha) => {
    const ref = raw === 'MAIN' ? main : raw === 'SHORT' ? main.slice(0, 7) : raw;
    const response = await api(`/repos/${alice.handle}/svc/commits/${ref}/status`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({
      state: 'success',
      sha: sha(),
      total_count: 0,
      statuses: [],
      commit_url: `${kiln.url}/repos/${alice.handle}/svc/commit/${sha()}`,
      url: `${kiln.url}/api/v1/repos/${alice.handle}/svc/commits/${sha()}/status`,
    });
    expect(body.repository.full_name).toBe(`${alice.handle}/svc`);
    expect(body.repository.permissions).toEqual({ admin: false, push: false, pull: true });
  });

  it.each(['gone', 'renovate%2Fgone', 'main~1', 'deadbeef', '%00'])(
    'is a 404 for an unknown ref %s',
    async (ref) => {
      expect((await api(`/repos/${alice.handle}/svc/commits/${ref}/status`)).status).toBe(404);
      expect((await api(`/repos/${alice.handle}/svc/commits/${ref}/statuses`)).status).toBe(404);
    },
  );

  it('is a 404 for other paths under commits/', async () => {
    for (const path of ['main', 'main/other', 'status', '']) {
      const response = await api(`/repos/${alice.handle}/svc/commits/${path}`);
      expect(response.status, path).toBe(404);
    }
  });
});

describe('GET /repos/{owner}/{name}/commits/{ref}/statuses', () => {
  it('is an empty list for an existing ref', async () => {
    const response = await api(`/repos/${alice.handle}/svc/commits/renovate%2Flodash-4.x/statuses`);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual([]);
    expect(response.headers.get('x-total-count')).toBe('0');
  });
});

describe('POST /repos/{owner}/{name}/statuses/{sha}', () => {
  const posted = {
    state: 'pending',
    context: ' renovate/stability-days ',
    description: 'Updates have not met minimum release age requirement',
    target_url: 'https://example.test/x',
  };

  it('echoes the status under `status` with 201 and stores nothing', async () => {
    const response = await api(`/repos/${alice.handle}/svc/statuses/${feature}`, {
      token: alice.token,
      method: 'POST',
      body: posted,
    });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body).toMatchObject({
      status: 'pending',
      context: 'renovate/stability-days',
      description: posted.description,
      target_url: posted.target_url,
      url: `${kiln.url}/api/v1/repos/${alice.handle}/svc/statuses/${feature}`,
    });
    expect(body).not.toHaveProperty('state');
    expect(body.creator.login).toBe(alice.handle);
    expect(body.creator).not.toHaveProperty('email');
    expect(body.updated_at).toBe(body.created_at);
    expect(Number.isSafeInteger(body.id)).toBe(true);
    const after = await api(`/repos/${alice.handle}/svc/commits/renovate%2Flodash-4.x/statuses`);
    expect(await json(after)).toEqual([]);
    const combined = await json(await api(`/repos/${alice.handle}/svc/commits/${feature}/status`));
    expect(combined.state).toBe('success');
  });

  it('expands a short sha', async () => {
    const response = await api(`/repos/${alice.handle}/svc/statuses/${main.slice(0, 8)}`, {
      token: alice.token,
      method: 'POST',
      body: { state: 'success' },
    });
    expect(response.status).toBe(201);
    expect((await json(response)).url).toContain(main);
  });

  it('needs write access and an existing commit', async () => {
    const path = `/repos/${alice.handle}/svc/statuses/${main}`;
    expect((await api(path, { method: 'POST', body: posted })).status).toBe(401);
    expect((await api(path, { token: bob.token, method: 'POST', body: posted })).status).toBe(403);
    const missing = `/repos/${alice.handle}/svc/statuses/${'0'.repeat(40)}`;
    expect((await api(missing, { token: alice.token, method: 'POST', body: posted })).status).toBe(
      404,
    );
  });

  it('refuses an unknown state with 422', async () => {
    const response = await api(`/repos/${alice.handle}/svc/statuses/${main}`, {
      token: alice.token,
      method: 'POST',
      body: { state: 'green' },
    });
    expect(response.status).toBe(422);
  });
});
