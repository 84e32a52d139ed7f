/**
 * The anonymous search page: people without their email, repositories the caller may see, the
 * query echoed safely, and the same path answering JSON (SPEC.md → Person view, Authentication).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { get } from './support.ts';

let kiln: TestServer;
let ownerCookie: string;
beforeAll(async () => {
  // Budgets high enough that this suite is never refused.
  kiln = await startTestServer({ SERVICE_PROTECT_ANONYMOUS_BUDGET: '1000' });
  const { user: owner } = await kiln.make.user({
    handle: 'zebra-owner',
    email: 'zebra.owner@example.test',
    fullName: 'Zelda Zebra',
  });
  await kiln.make.user({ handle: 'zebrafan', email: 'fan@example.test' });
  await kiln.make.org(owner, 'zebra-org');
  await kiln.app.services.repos.create(owner, { name: 'zebra-public', description: 'Stripes <b>' });
  await kiln.app.services.repos.create(owner, { name: 'zebra-secret', private: true });
  const session = await kiln.app.services.sessions.start(owner);
  ownerCookie = `kiln_session=${session.secret}`;
});
afterAll(async () => {
  await kiln?.close();
});

const asJson = { accept: 'application/json' };

describe('GET /search as JSON', () => {
  it('finds people without their email and only visible repositories', async () => {
    const response = await get(kiln.url, '/search?q=zebra', { headers: asJson });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('vary')).toContain('Accept');
    const body: Json = await json(response);
    expect(Object.keys(body).sort()).toEqual(['repositories', 'users']);
    expect(body.users.map((u: Json) => u.login)).toEqual(['zebra-owner', 'zebrafan']);
    expect(body.users[0]).toEqual({
      id: expect.any(Number),
      login: 'zebra-owner',
      username: 'zebra-owner',
      full_name: 'Zelda Zebra',
    });
    expect(body.repositories).toEqual([
      {
        owner: 'zebra-owner',
        name: 'zebra-public',
        full_name: 'zebra-owner/zebra-public',
        description: 'Stripes <b>',
        private: false,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect(JSON.stringify(body)).not.toContain('@example.test');
  });

  it('shows the owner their private repository', async () => {
    const response = await get(kiln.url, '/search?q=zebra', {
      headers: { ...asJson, cookie: ownerCookie },
    });
    const body: Json = await json(response);
    expect(body.repositories.map((r: Json) => r.name)).toEqual(['zebra-public', 'zebra-secret']);
  });

  it('answers empty lists to an empty query', async () => {
    const body: Json = await json(await get(kiln.url, '/search?q=%20', { headers: asJson }));
    expect(body).toEqual({ users: [], repositories: [] });
  });

  it('treats LIKE wildcards as text', async () => {
    const body: Json = await json(await get(kiln.url, '/search?q=%25', { headers: asJson }));
    expect(body).toEqual({ users: [], repositories: [] });
  });

  it('prefers HTML when the client prefers it', async () => {
    const html = await get(kiln.url, '/search?q=zebra', {
      headers: { accept: 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8' },
    });
    expect(html.headers.get('content-type')).toContain('text/html');
    const star = await get(kiln.url, '/search?q=zebra', { headers: { accept: '*/*' } });
    expect(star.headers.get('content-type')).toContain('text/html');
    const jsonFirst = await get(kiln.url, '/search?q=zebra', {
      headers: { accept: 'application/json, */*' },
    });
    expect(jsonFirst.headers.get('content-type')).toContain('application/json');
  });
});

describe('GET /search as a page', () => {
  it('lists results in the layout, without emails or private repositories', async () => {
    const response = await get(kiln.url, '/search?q=zebra');
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<header class="Header');
    expect(page).toContain('href="/repos/zebra-owner/zebra-public"');
    expect(page).toContain('Stripes &lt;b&gt;');
    expect(page).toContain('href="/zebrafan"');
    expect(page).not.toContain('zebra-secret');
    expect(page).not.toContain('@example.test');
    expect(page).toMatch(/<input id="header-search"[^>]* value="zebra"[^>]*>/);
  });

  it('escapes the query wherever it is echoed', async () => {
    const evil = '"><script>alert(1)</script>';
    const response = await get(kiln.url, `/search?q=${encodeURIComponent(evil)}`);
    const page = await response.text();
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).not.toContain('"><script>');
    expect(page).toMatch(
      /<input id="header-search"[^>]* value="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"[^>]*>/,
    );
    expect(page).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" maxlength');
  });

  it('shows an empty search page for an empty query', async () => {
    const response = await get(kiln.url, '/search');
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<h1 class="h2 mb-3">Search</h1>');
    expect(page).not.toContain('No repositories match');
  });

  it('bounds the query length', async () => {
    const long = 'z'.repeat(5000);
    const response = await get(kiln.url, `/search?q=${long}`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain(`value="${'z'.repeat(100)}"`);
    expect(page).not.toContain('z'.repeat(101));
  });

  it('takes the first of repeated q parameters', async () => {
    const body: Json = await json(
      await get(kiln.url, '/search?q=zebrafan&q=nothing', { headers: asJson }),
    );
    expect(body.users.map((u: Json) => u.login)).toEqual(['zebrafan']);
  });
});
