/**
 * Branches over REST: the list (paginated, `[]` when empty) and one branch by a name that may
 * hold slashes, raw or `%2F`-encoded. Only refs/heads counts; everything else is Gitea's 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addCommit, addTag, apiClient, type Caller, caller, createRepo } from './fixtures.ts';

let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;
let bob: Caller;
let tip: string;

beforeAll(async () => {
  kiln = await startTestServer();
  api = apiClient(kiln);
  alice = await caller(kiln, 'Alice Doe');
  bob = await caller(kiln);
  await createRepo(kiln, alice, 'tools');
  tip = await addCommit(kiln, alice.handle, 'tools', 'feature/deep/x', {
    author: `Alice Doe <${alice.email.toUpperCase()}>`,
    message: 'Add x\n\nwith a body\n',
    time: 1_700_000_000,
  });
  await addTag(kiln, alice.handle, 'tools', 'v1.0', tip);
});
afterAll(async () => {
  await kiln?.close();
});

describe('GET /repos/{owner}/{name}/branches', () => {
  it('lists branches by name with paging headers', async () => {
    const response = await api(`/repos/${alice.handle}/tools/branches`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-total-count')).toBe('2');
    const body = await json(response);
    expect(body.map((b: { name: string }) => b.name)).toEqual(['feature/deep/x', 'main']);
  });

  it('pages with limit and sends a next link', async () => {
    const response = await api(`/repos/${alice.handle}/tools/branches?limit=1&page=1`);
    const body = await json(response);
    expect(body).toHaveLength(1);
    expect(response.headers.get('link')).toContain('rel="next"');
    const second = await json(await api(`/repos/${alice.handle}/tools/branches?limit=1&page=2`));
    expect(second[0].name).toBe('main');
    const past = await json(await api(`/repos/${alice.handle}/tools/branches?limit=1&page=9`));
    expect(past).toEqual([]);
  });

  it('answers [] for an empty repository', async () => {
    await createRepo(kiln, alice, 'empty', { autoInit: false });
    const response = await api(`/repos/${alice.handle}/empty/branches`);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual([]);
    expect(response.headers.get('x-total-count')).toBe('0');
  });

  it('hides a private repository as 404', async () => {
    await createRepo(kiln, alice, 'secret', { private: true });
    expect((await api(`/repos/${alice.handle}/secret/branches`)).status).toBe(404);
    expect((await api(`/repos/${alice.handle}/secret/branches`, { token: bob.token })).status).toBe(
      404,
    );
    expect(
      (await api(`/repos/${alice.handle}/secret/branches/main`, { token: bob.token })).status,
    ).toBe(404);
    expect(
      (await api(`/repos/${alice.handle}/secret/branches`, { token: alice.token })).status,
    ).toBe(200);
  });
});

describe('GET /repos/{owner}/{name}/branches/{branch}', () => {
  it.each([
    ['raw slashes', 'feature/deep/x'],
    ['%2F-encoded slashes', 'feature%2Fdeep%2Fx'],
    ['mixed', 'feature/deep%2Fx'],
  ])('resolves a name with %s', async (_how, path) => {
    const response = await api(`/repos/${alice.handle}/tools/branches/${path}`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.name).toBe('feature/deep/x');
    expect(body.commit.id).toBe(tip);
  });

  it('shows every Gitea key of a branch and its commit', async () => {
    const body = await json(await api(`/repos/${alice.handle}/tools/branches/feature/deep/x`));
    expect(body).toEqual({
      name: 'feature/deep/x',
      commit: {
        id: tip,
        message: 'Add x\n\nwith a body\n',
        url: `${kiln.url}/repos/${alice.handle}/tools/commit/${tip}`,
        author: { name: 'Alice Doe', email: alice.email.toUpperCase(), username: alice.handle },
        committer: { name: 'Test User', email: 'test@example.com', username: '' },
        verification: {
          verified: false,
          reason: 'gpg.error.not_signed_commit',
          signature: '',
          signer: null,
          payload: '',
        },
        timestamp: '2023-11-14T22:13:20+00:00',
        added: null,
        removed: null,
        modified: null,
      },
      protected: false,
      required_approvals: 0,
      enable_status_check: false,
      status_check_contexts: [],
      user_can_push: false,
      user_can_merge: false,
      effective_branch_protection_name: '',
    });
  });

  it('tells the caller what they may do, and names the protection for admins', async () => {
    await kiln.app.services.protectedBranches.protect(
      await kiln.app.services.users.getUser(alice.handle),
      alice.handle,
      'tools',
      'main',
    );
    const owner = await json(
      await api(`/repos/${alice.handle}/tools/branches/main`, { token: alice.token }),
    );
    expect(owner).toMatchObject({
      protected: true,
      user_can_push: true,
      user_can_merge: true,
      effective_branch_protection_name: 'main',
    });
    const other = await json(
      await api(`/repos/${alice.handle}/tools/branches/main`, { token: bob.token }),
    );
    expect(other).toMatchObject({
      protected: true,
      user_can_push: false,
      effective_branch_protection_name: '',
    });
  });

  it.each([
    ['a tag', 'v1.0'],
    ['a full sha', 'SHA'],
    ['an abbreviated sha', 'SHORT'],
    ['a full ref', 'refs/heads/main'],
    ['HEAD', 'HEAD'],
    ['a missing branch', 'nope'],
    ['a double-encoded slash', 'feature%252Fdeep%252Fx'],
    ['revision syntax', 'main~1'],
    ['a dot-dot', 'a..b'],
    ['an empty name', ''],
    ['a NUL', '%00'],
    ['a space', 'a%20b'],
    ['a leading dash', '-main'],
  ])('answers Gitea’s 404 for %s', async (_what, raw) => {
    const name = raw === 'SHA' ? tip : raw === 'SHORT' ? tip.slice(0, 8) : raw;
    const response = await api(`/repos/${alice.handle}/tools/branches/${name}`);
    expect(response.status).toBe(404);
    const body = await json(response);
    expect(body.message).toEqual(expect.any(String));
    expect(body.url).toBe(`${kiln.url}/api/swagger`);
    if (raw !== '' && raw !== 'feature%252Fdeep%252Fx' && !raw.includes('%')) {
      expect(body.errors).toEqual([`branch does not exist [name: ${name}]`]);
    }
  });

  it('answers 404 for an unknown repository or owner', async () => {
    expect((await api(`/repos/${alice.handle}/nothing/branches/main`)).status).toBe(404);
    expect((await api('/repos/nobody-at-all/tools/branches/main')).status).toBe(404);
  });
});
