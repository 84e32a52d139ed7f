/**
 * NUL characters in names, queries and bodies: refused with 422 before any lookup or write (git
 * cannot hold them and PostgreSQL refuses them), never a 500 — on either database engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let token: string;
let owner: string;
beforeAll(async () => {
  kiln = await startTestServer();
  const made = await kiln.make.userWithToken();
  token = made.token;
  owner = made.user.handle;
  await kiln.app.services.repos.create(made.user, { name: 'nul', autoInit: true });
});
afterAll(async () => {
  await kiln?.close();
});

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${kiln.url}${path}`, {
    method,
    headers: { ...auth.token(token), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('NUL in input', () => {
  it.each([
    ['GET', '/api/v1/users/a%00b'],
    ['GET', '/api/v1/users/a%00b/repos'],
    ['POST', '/api/v1/orgs/a%00b/repos', { name: 'x' }],
    ['PUT', '/api/v1/repos/OWNER/nul/collaborators/a%00b', { permission: 'read' }],
    ['GET', '/api/v1/repos/OWNER/n%00l'],
    ['GET', '/api/v1/repos/OWNER/nul/branches/ma%00in'],
    ['GET', '/api/v1/repos/search?q=a%00'],
    ['POST', '/api/v1/user/repos', { name: 'ok', description: 'a\u0000b' }],
    ['POST', '/api/v1/repos/OWNER/nul/pulls', { title: 't\u0000', head: 'x', base: 'main' }],
  ])('%s %s → 4xx', async (method, path, body?: unknown) => {
    const response = await call(method, path.replace('OWNER', owner), body);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it('refuses NUL in pages and git paths too', async () => {
    expect((await fetch(`${kiln.url}/search?q=a%00b`)).status).toBe(422);
    expect((await fetch(`${kiln.url}/a%00b`)).status).toBeLessThan(500);
    expect(
      (await fetch(`${kiln.url}/${owner}/n%00l.git/info/refs?service=git-upload-pack`)).status,
    ).toBeLessThan(500);
    expect((await fetch(`${kiln.url}/healthz`)).status).toBe(200);
  });
});
