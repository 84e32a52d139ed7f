/**
 * What SPEC.md says must not exist answers 404 with the JSON not-found body: finding a pull by
 * branches, file contents, issues and issue comments, release assets, requested reviewers, and
 * branch deletion after a merge. Stock clients gate on these or fall back when they are absent.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addCommit, apiClient, type Caller, caller, createRepo } from './fixtures.ts';

let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;
let repo: string;
let releaseId: number;

beforeAll(async () => {
  kiln = await startTestServer();
  api = apiClient(kiln);
  alice = await caller(kiln);
  await createRepo(kiln, alice, 'absent');
  await addCommit(kiln, alice.handle, 'absent', 'feature/x');
  repo = `/repos/${alice.handle}/absent`;
  const release = await api(`${repo}/releases`, {
    token: alice.token,
    method: 'POST',
    body: { tag_name: 'v1' },
  });
  releaseId = (await json(release)).id;
});
afterAll(async () => {
  await kiln?.close();
});

const absent = (): Array<[string, string, unknown?]> => [
  ['GET', `${repo}/pulls/main/feature/x`],
  ['GET', `${repo}/pulls/main/feature%2Fx`],
  ['GET', `${repo}/pulls/main/${alice.handle}:feature`],
  ['GET', `${repo}/contents/README.md`],
  ['GET', `${repo}/contents/.gitea%2Frenovate.json?ref=main`],
  ['GET', `${repo}/contents`],
  ['GET', `${repo}/issues`],
  ['GET', `${repo}/issues?state=all&type=issues`],
  ['POST', `${repo}/issues`, { title: 't', body: 'b' }],
  ['GET', `${repo}/issues/1`],
  ['PATCH', `${repo}/issues/1`, { state: 'closed' }],
  ['GET', `${repo}/issues/1/comments`],
  ['POST', `${repo}/issues/1/comments`, { body: 'hi' }],
  ['PATCH', `${repo}/issues/comments/1`, { body: 'hi' }],
  ['DELETE', `${repo}/issues/comments/1`],
  ['PUT', `${repo}/issues/1/labels`, { labels: [] }],
  ['DELETE', `${repo}/issues/1/labels/1`],
  ['GET', `${repo}/releases/RELEASE/assets`],
  ['POST', `${repo}/releases/RELEASE/assets`, {}],
  ['GET', `${repo}/releases/RELEASE/assets/1`],
  ['POST', `${repo}/pulls/1/requested_reviewers`, { reviewers: ['x'] }],
  ['DELETE', `${repo}/pulls/1/requested_reviewers`, { reviewers: ['x'] }],
  ['POST', `${repo}/pulls/1/delete_branch_after_merge`, {}],
  ['DELETE', `${repo}/branches/feature/x/delete_branch_after_merge`],
];

it('answers every absent endpoint with the JSON 404', async () => {
  const list = absent();
  expect(list.length).toBeGreaterThan(20);
  for (const [method, raw, body] of list) {
    const path = raw.replace('RELEASE', String(releaseId));
    for (const token of [alice.token, undefined]) {
      const response = await api(path, { method, ...(token ? { token } : {}), body });
      const what = `${method} ${path}${token ? ' (signed in)' : ''}`;
      expect(response.status, what).toBe(404);
      expect(response.headers.get('content-type'), what).toContain('application/json');
      expect(await json(response), what).toMatchObject({ message: expect.any(String) });
    }
  }
});

it('reports a version below the one that enables requested_reviewers', async () => {
  const { version } = await json(await api('/version'));
  const [major = 0, minor = 0] = String(version).split('.').map(Number);
  expect(major === 1 && minor < 14).toBe(true);
});
