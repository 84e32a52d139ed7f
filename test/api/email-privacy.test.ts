/**
 * Email only for oneself (SPEC.md → User): `GET /user` shows the caller's address; no other user
 * object anywhere does — not owners, not release authors or status creators, not `/users/{u}` —
 * even when the person looking is that very user.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Json, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addCommit, apiClient, type Caller, caller, createRepo } from './fixtures.ts';

let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;

beforeAll(async () => {
  kiln = await startTestServer();
  api = apiClient(kiln);
  alice = await caller(kiln);
  await createRepo(kiln, alice, 'mail');
  await addCommit(kiln, alice.handle, 'mail', 'main', { author: `Alice <${alice.email}>` });
});
afterAll(async () => {
  await kiln?.close();
});

/** Objects with a `login`: users wherever they are nested. */
function users(value: Json, found: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const item of value) users(item, found);
  else if (value && typeof value === 'object') {
    if (typeof value.login === 'string') found.push(value);
    for (const child of Object.values(value)) users(child, found);
  }
  return found;
}

it('shows the address on GET /user only', async () => {
  const self = await json(await api('/user', { token: alice.token }));
  expect(self.email).toBe(alice.email);

  const release = await json(
    await api(`/repos/${alice.handle}/mail/releases`, {
      token: alice.token,
      method: 'POST',
      body: { tag_name: 'v1' },
    }),
  );
  const sha = (await json(await api(`/repos/${alice.handle}/mail/branches/main`))).commit.id;
  const status = await json(
    await api(`/repos/${alice.handle}/mail/statuses/${sha}`, {
      token: alice.token,
      method: 'POST',
      body: { state: 'success' },
    }),
  );
  const bodies: Json[] = [release, status];
  for (const path of [
    `/users/${alice.handle}`,
    `/users/${alice.handle}/repos`,
    '/user/repos',
    '/repos',
    '/repos/search',
    `/repos/${alice.handle}/mail`,
    `/repos/${alice.handle}/mail/releases`,
    `/repos/${alice.handle}/mail/releases/tags/v1`,
    `/repos/${alice.handle}/mail/releases/latest`,
    `/repos/${alice.handle}/mail/commits/main/status`,
  ]) {
    for (const token of [alice.token, undefined]) {
      bodies.push(await json(await api(path, token ? { token } : {})));
    }
  }
  const seen = bodies.flatMap((body) => users(body));
  expect(seen.length).toBeGreaterThan(15);
  for (const user of seen) expect(user).not.toHaveProperty('email');
});
