/**
 * REST authentication and the basic endpoints: every header form SPEC.md accepts reaches the
 * same user; wrong and revoked tokens are 401 with Gitea's {message, url}; errors never leak.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
beforeAll(async () => {
  kiln = await startTestServer();
});
afterAll(async () => {
  await kiln?.close();
});

const api = (path: string, init?: RequestInit) => fetch(`${kiln.url}/api/v1${path}`, init);

describe('GET /api/v1/version', () => {
  it('reports the configured forge API version', async () => {
    const response = await api('/version');
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ version: '1.13.0' });
  });
});

describe('GET /api/v1/user', () => {
  it.each([
    ['token', auth.token],
    ['Bearer', auth.bearer],
    ['Basic with the token as password', auth.basicPassword],
    ['Basic with the token as username', auth.basicUsername],
  ])('accepts %s', async (_form, header) => {
    const { user, token } = await kiln.make.userWithToken();
    const response = await api('/user', { headers: header(token) });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.login).toBe(user.handle);
    expect(body.username).toBe(user.handle);
    expect(body.email).toBe(user.email);
    expect(body.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number.isSafeInteger(body.id)).toBe(true);
    expect(body.id).toBeGreaterThan(0);
  });

  it('answers 401 without credentials', async () => {
    const response = await api('/user');
    expect(response.status).toBe(401);
    const body = await json(response);
    expect(body.message).toBe('token is required');
    expect(body.url).toBe(`${kiln.url}/api/swagger`);
  });

  it('answers 401 to a wrong token even on a public endpoint', async () => {
    const wrong = 'f'.repeat(40);
    expect((await api('/user', { headers: auth.token(wrong) })).status).toBe(401);
    expect((await api('/version', { headers: auth.bearer('not-a-token') })).status).toBe(401);
    expect((await api('/version', { headers: { authorization: 'Digest abc' } })).status).toBe(401);
  });

  it('stops accepting a revoked token', async () => {
    const { user, token } = await kiln.make.userWithToken();
    expect((await api('/user', { headers: auth.token(token) })).status).toBe(200);
    const [record] = await kiln.app.services.tokens.list(user);
    await kiln.app.services.tokens.revoke(user, record!.id);
    const response = await api('/user', { headers: auth.token(token) });
    expect(response.status).toBe(401);
    expect(await json(response)).toMatchObject({
      message: expect.any(String),
      url: expect.any(String),
    });
  });

  it('records when a token was last used', async () => {
    const { user, token } = await kiln.make.userWithToken();
    expect((await kiln.app.services.tokens.list(user))[0]?.lastUsedAt).toBeNull();
    await api('/user', { headers: auth.token(token) });
    expect((await kiln.app.services.tokens.list(user))[0]?.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe('GET /api/v1/users/{username}', () => {
  it('shows another user without an email key', async () => {
    const { user } = await kiln.make.user();
    const { token } = await kiln.make.userWithToken();
    for (const headers of [{}, auth.token(token)]) {
      const response = await api(`/users/${user.handle.toUpperCase()}`, { headers });
      expect(response.status).toBe(200);
      const body = await json(response);
      expect(body.login).toBe(user.handle);
      expect(body).not.toHaveProperty('email');
    }
  });

  it('answers 404 for an unknown user', async () => {
    const response = await api('/users/nobody-here');
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({
      message: expect.stringContaining('nobody-here'),
    });
  });
});

describe('API errors', () => {
  it('answers JSON 404 for unknown paths', async () => {
    const response = await api('/no/such/thing');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await json(response)).toMatchObject({ message: 'not found' });
  });
});

describe('operations', () => {
  it('serves /healthz and /metrics', async () => {
    const health = await fetch(`${kiln.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok');
    await api('/version');
    const metrics = await (await fetch(`${kiln.url}/metrics`)).text();
    expect(metrics).toContain(
      'kiln_http_requests_total{method="GET",route="/api/v1/version",status="200"}',
    );
    expect(metrics).toContain('kiln_http_request_duration_seconds_bucket');
  });

  it('serves the OpenAPI document', async () => {
    const response = await fetch(`${kiln.url}/api/v1/swagger.json`);
    expect(response.status).toBe(200);
    const document = await json(response);
    expect(document.paths['/version']).toBeDefined();
    expect(document.paths['/user']).toBeDefined();
  });
});
