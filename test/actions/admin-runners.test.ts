/**
 * `/admin/runners` over real HTTP, as a browser without JavaScript uses it: closed to everyone
 * when SERVICE_ADMIN_HANDLES is empty, open only to the listed handles otherwise; minting a
 * registration token (shown once), and deleting tokens and runners with CSRF-checked forms.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { runnerClients, runnerHeaders } from './fixtures.ts';

async function signedIn(kiln: TestServer, handle?: string): Promise<Browser> {
  const { user, password } = await kiln.make.user(handle === undefined ? {} : { handle });
  const browser = new Browser(kiln.url);
  await browser.get('/login');
  const response = await browser.post('/login', { login: user.handle, password });
  expect(response.status).toBe(303);
  return browser;
}

async function tokenCount(kiln: TestServer): Promise<number> {
  const rows = await kiln.app.database.db
    .selectFrom('runner_registration_tokens')
    .select('id')
    .execute();
  return rows.length;
}

describe('with no admins configured', () => {
  let kiln: TestServer;
  beforeAll(async () => {
    kiln = await startTestServer();
  });
  afterAll(async () => {
    await kiln?.close();
  });

  it('answers 404 to everyone, signed in or not, for pages and forms', async () => {
    const anonymous = new Browser(kiln.url);
    expect((await anonymous.get('/admin/runners')).status).toBe(404);
    const person = await signedIn(kiln, 'admin-hopeful');
    expect((await person.get('/admin/runners')).status).toBe(404);
    expect((await person.post('/admin/runners/tokens', {})).status).toBe(404);
    expect((await person.get('/admin')).status).toBe(404);
    expect(await tokenCount(kiln)).toBe(0);
  });
});

describe('with SERVICE_ADMIN_HANDLES set', () => {
  let kiln: TestServer;
  let admin: Browser;
  beforeAll(async () => {
    kiln = await startTestServer({ SERVICE_ADMIN_HANDLES: 'root,ops' });
    admin = await signedIn(kiln, 'root');
  });
  afterAll(async () => {
    await kiln?.close();
  });

  it('stays closed to anonymous visitors and people not listed', async () => {
    expect((await new Browser(kiln.url).get('/admin/runners')).status).toBe(404);
    const other = await signedIn(kiln);
    expect((await other.get('/admin/runners')).status).toBe(404);
    expect((await other.post('/admin/runners/tokens', {})).status).toBe(404);
    const home = await (await other.get('/')).text();
    expect(home).not.toContain('/admin/runners');
  });

  it('shows a listed handle the page, linked from the account menu', async () => {
    const page = await admin.get('/admin/runners');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const text = await page.text();
    expect(text).toContain('Registration tokens');
    expect(text).toContain('Registered runners');
    // The account menu leads to the admin area, whose navigation leads here.
    expect(await (await admin.get('/')).text()).toContain('href="/admin"');
    expect(text).toContain('href="/admin/runners" aria-current="page"');
  });

  it('mints a token shown once, which registers a runner that then appears', async () => {
    const minted = await admin.post('/admin/runners/tokens', {});
    expect(minted.status).toBe(201);
    expect(minted.headers.get('cache-control')).toBe('private, no-store');
    const page = await minted.text();
    const token = /<code id="new-token">([0-9a-f]{40})<\/code>/.exec(page)?.[1];
    expect(token).toBeDefined();
    expect(page).toContain(`--instance ${kiln.url}`);
    expect(await (await admin.get('/admin/runners')).text()).not.toContain(token);

    const { runner } = runnerClients(kiln);
    const registered = await runner.register({
      name: 'page-runner',
      token: token ?? '',
      version: 'v0.2.11',
      labels: ['ubuntu-latest', 'arm64'],
      ephemeral: true,
    });
    const listed = await (await admin.get('/admin/runners')).text();
    expect(listed).toContain('page-runner');
    expect(listed).toContain('arm64');
    expect(listed).toContain('v0.2.11');
    expect(listed).toContain('Idle');
    expect(listed).toContain(registered.runner?.uuid ?? 'missing');
    expect(listed).toContain('<td class="p-2 border-top">root</td>');
  });

  it('refuses a form without its CSRF token', async () => {
    const before = await tokenCount(kiln);
    expect((await admin.post('/admin/runners/tokens', {}, { csrf: false })).status).toBe(403);
    expect(await tokenCount(kiln)).toBe(before);
  });

  it('deletes a token (no new registrations) and a runner (credentials stop working)', async () => {
    const page = await (await admin.post('/admin/runners/tokens', {})).text();
    const token = /<code id="new-token">([0-9a-f]{40})<\/code>/.exec(page)?.[1] ?? '';
    const { runner: client } = runnerClients(kiln);
    const { runner } = await client.register({ name: 'doomed', token, version: 'v1' });
    const credentials = runnerHeaders({ uuid: runner?.uuid ?? '', token: runner?.token ?? '' });

    const listing = await (await admin.get('/admin/runners')).text();
    const tokenIds = [
      ...listing.matchAll(/action="\/admin\/runners\/tokens\/([0-9a-f-]+)\/delete"/g),
    ];
    for (const [, id] of tokenIds) {
      const deleted = await admin.post(`/admin/runners/tokens/${id}/delete`, { confirm: 'yes' });
      expect(deleted.status).toBe(303);
      expect(deleted.headers.get('location')).toBe('/admin/runners');
    }
    await expect(client.register({ name: 'late', token, version: 'v1' })).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
    // Deleting the token left the runner working.
    await client.declare({ version: 'v2' }, { headers: credentials });

    const stored = await kiln.app.database.db
      .selectFrom('runners')
      .select('id')
      .where('uuid', '=', runner?.uuid ?? '')
      .executeTakeFirstOrThrow();
    const asked = await admin.post(`/admin/runners/${stored.id}/delete`, {});
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Delete this runner?');
    await client.declare({ version: 'v2' }, { headers: credentials });
    expect(
      (await admin.post(`/admin/runners/${stored.id}/delete`, { confirm: 'yes' })).status,
    ).toBe(303);
    expect(await (await admin.get('/admin/runners')).text()).toContain('Runner deleted.');
    const error = await client.declare({ version: 'v3' }, { headers: credentials }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.Unauthenticated);
    expect(
      (await admin.post(`/admin/runners/${stored.id}/delete`, { confirm: 'yes' })).status,
    ).toBe(404);
  });
});
