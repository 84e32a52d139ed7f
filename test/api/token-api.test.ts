/**
 * Gitea's token API, as `tea login add` and gitea-js use it: with the account's password over
 * HTTP Basic, create a scoped token (shown once, in `sha1`), list tokens without their secrets,
 * delete one by id or name. Only the account itself (or an administrator) may; a token cannot
 * mint tokens; wrong passwords are throttled like the sign-in form's.
 */
import { giteaApi } from 'gitea-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { apiCall, auth } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { checkGiteaResponse } from './gitea-swagger.ts';

let kiln: TestServer;
let alice: { user: User; password: string };

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_AUTH_LOGIN_ACCOUNT_LIMIT: '3',
    SERVICE_AUTH_LOGIN_ADDRESS_LIMIT: '50',
  });
  alice = await kiln.make.user();
});
afterAll(async () => {
  await kiln?.close();
});

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

async function tokenApi(
  method: string,
  path: string,
  authorization: string | undefined,
  body?: unknown,
) {
  const response = await fetch(`${kiln.url}/api/v1${path}`, {
    method,
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : undefined;
  checkGiteaResponse(method, path, response.status, json);
  return { status: response.status, body: json, headers: response.headers };
}

describe('the token API with a password', () => {
  it('creates a scoped token, lists it without its secret and deletes it by id', async () => {
    const login = basic(alice.user.handle, alice.password);
    const path = `/users/${alice.user.handle}/tokens`;
    const made = await tokenApi('POST', path, login, {
      name: 'tea',
      scopes: ['read:user', 'write:repository', 'read:repository'],
    });
    expect(made.status).toBe(201);
    expect(made.body.sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(made.body.token_last_eight).toBe(made.body.sha1.slice(-8));
    expect(made.body.scopes).toEqual(['write:repository', 'read:user']);

    const me = await apiCall(kiln.url, '/user', { token: made.body.sha1 });
    expect(me.status).toBe(200);

    const listed = await tokenApi('GET', path, login);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      {
        id: made.body.id,
        name: 'tea',
        sha1: '',
        token_last_eight: made.body.token_last_eight,
        scopes: made.body.scopes,
      },
    ]);

    expect((await tokenApi('DELETE', `${path}/${made.body.id}`, login)).status).toBe(204);
    expect((await apiCall(kiln.url, '/user', { token: made.body.sha1 })).status).toBe(401);
    expect((await tokenApi('GET', path, login)).body).toEqual([]);
  });

  it('deletes by name, and says 404 for a token that is not there', async () => {
    const login = basic(alice.user.handle, alice.password);
    const path = `/users/${alice.user.handle}/tokens`;
    await tokenApi('POST', path, login, { name: 'by-name', scopes: ['all'] });
    expect((await tokenApi('DELETE', `${path}/by-name`, login)).status).toBe(204);
    expect((await tokenApi('DELETE', `${path}/by-name`, login)).status).toBe(404);
  });

  it('refuses unknown scopes; a request naming none gets every scope, as before scopes', async () => {
    const login = basic(alice.user.handle, alice.password);
    const path = `/users/${alice.user.handle}/tokens`;
    const unknown = await tokenApi('POST', path, login, { name: 'x', scopes: ['repo'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toBe('invalid access token scope: repo');
    for (const [name, scopes] of [
      ['absent', undefined],
      ['null', null],
      ['empty', []],
    ]) {
      const made = await tokenApi('POST', path, login, { name, scopes });
      expect([name, made.status, made.body.message]).toEqual([name, 201, undefined]);
      expect(made.body.scopes).toEqual(['all']);
    }
  });

  it("refuses someone else's tokens, and minting with a token", async () => {
    const bob = await kiln.make.user();
    const bobLogin = basic(bob.user.handle, bob.password);
    const path = `/users/${alice.user.handle}/tokens`;
    expect((await tokenApi('GET', path, bobLogin)).status).toBe(403);
    expect((await tokenApi('POST', path, bobLogin, { name: 'z', scopes: ['all'] })).status).toBe(
      403,
    );
    const token = await kiln.make.token(alice.user);
    const minted = await tokenApi('POST', path, auth.token(token).authorization, {
      name: 'from-token',
      scopes: ['all'],
    });
    expect(minted.status).toBe(403);
    // Elsewhere in the API a password is no credential at all.
    const elsewhere = await tokenApi('GET', '/user', basic(alice.user.handle, alice.password));
    expect(elsewhere.status).toBe(401);
  });

  it('throttles wrong passwords like the sign-in form', async () => {
    const carol = await kiln.make.user();
    const path = `/users/${carol.user.handle}/tokens`;
    const wrong = basic(carol.user.handle, 'not the password');
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await tokenApi('GET', path, wrong)).status).toBe(401);
    }
    const locked = await tokenApi('GET', path, basic(carol.user.handle, carol.password));
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('gitea-js', () => {
  it('creates, lists and deletes a token through userCreateToken', async () => {
    const client = giteaApi(kiln.url, { customFetch: fetch });
    const headers = { Authorization: basic(alice.user.handle, alice.password) };
    const { data: made } = await client.users.userCreateToken(
      alice.user.handle,
      { name: 'gitea-js', scopes: ['write:repository'] },
      { headers },
    );
    expect(made.scopes).toEqual(['write:repository']);
    const scoped = giteaApi(kiln.url, { token: made.sha1 ?? '', customFetch: fetch });
    const { data: found } = await scoped.repos.repoSearch({});
    expect(Array.isArray(found.data)).toBe(true);
    const { data: listed } = await client.users.userGetTokens(alice.user.handle, {}, { headers });
    expect(listed.map((token) => token.name)).toContain('gitea-js');
    await client.users.userDeleteAccessToken(alice.user.handle, String(made.id), { headers });
  });
});
