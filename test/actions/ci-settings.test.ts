/**
 * A repository's CI settings page over real HTTP: only its admins see it; they mint repository
 * registration tokens and manage the repository's runners, secrets and variables with plain,
 * CSRF-checked forms.
 */
import { Code } from '@connectrpc/connect';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { insertRepository, runnerClients, runnerHeaders } from './fixtures.ts';

const NEW_TOKEN = /<code id="new-token">([0-9a-f]{40})<\/code>/;

async function signIn(kiln: TestServer) {
  const { user, password } = await kiln.make.user();
  const browser = new Browser(kiln.url);
  await browser.get('/login');
  expect((await browser.post('/login', { login: user.handle, password })).status).toBe(303);
  return { user, browser };
}

describe('repository CI settings', () => {
  let kiln: TestServer;
  beforeAll(async () => {
    kiln = await startTestServer({ SERVICE_SECRET_KEY: 'test secret key for CI secrets' });
  });
  afterAll(async () => {
    await kiln?.close();
  });

  async function ownedRepository() {
    const owner = await signIn(kiln);
    const repo = await insertRepository(kiln, owner.user);
    return { ...owner, repo, path: `/repos/${owner.user.handle}/${repo.name}/settings/ci` };
  }

  it('is for repository admins only', async () => {
    const { path, browser } = await ownedRepository();
    const page = await browser.get(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const anonymous = await new Browser(kiln.url).get(path);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toMatch(/^\/login\?redirect=/);
    const stranger = await signIn(kiln);
    expect((await stranger.browser.get(path)).status).toBe(404);
    expect((await stranger.browser.post(`${path}/tokens`, {})).status).toBe(404);
  });

  it('mints a repository token whose runners are scoped to the repository', async () => {
    const { path, browser, repo } = await ownedRepository();
    const minted = await browser.post(`${path}/tokens`, {});
    expect(minted.status).toBe(201);
    const token = NEW_TOKEN.exec(await minted.text())?.[1] ?? '';
    const { runner: client } = runnerClients(kiln);
    const { runner } = await client.register({ name: 'repo-box', token, version: 'v1' });
    const stored = await kiln.app.database.db
      .selectFrom('runners')
      .selectAll()
      .where('uuid', '=', runner?.uuid ?? '')
      .executeTakeFirstOrThrow();
    expect(stored.scope_kind).toBe('repository');
    expect(stored.scope_repo_id).toBe(repo.id);
    const listing = await (await browser.get(path)).text();
    expect(listing).toContain('repo-box');
    expect(listing).not.toContain(token);

    // Another repository's admin cannot reach this runner through their own page.
    const other = await ownedRepository();
    expect(
      (await other.browser.post(`${other.path}/runners/${stored.id}/delete`, { confirm: 'yes' }))
        .status,
    ).toBe(404);
    const credentials = {
      headers: runnerHeaders({ uuid: stored.uuid, token: runner?.token ?? '' }),
    };
    await client.declare({ version: 'v2' }, credentials);

    // Without the confirmation field the form only asks; the runner keeps working.
    const asked = await browser.post(`${path}/runners/${stored.id}/delete`, {});
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Delete this runner?');
    await client.declare({ version: 'v2' }, credentials);
    expect(
      (await browser.post(`${path}/runners/${stored.id}/delete`, { confirm: 'yes' })).status,
    ).toBe(303);
    await expect(client.declare({ version: 'v3' }, credentials)).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
    const tokenId = /\/settings\/ci\/tokens\/([0-9a-f-]+)\/delete/.exec(listing)?.[1];
    expect(
      (await browser.post(`${path}/tokens/${tokenId}/delete`, { confirm: 'yes' })).status,
    ).toBe(303);
    await expect(client.register({ name: 'late', token, version: 'v1' })).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
  });

  it('saves secrets without ever showing their values again', async () => {
    const { path, browser, repo } = await ownedRepository();
    const saved = await browser.post(`${path}/secrets`, { name: 'deploy_key', value: 'hunter2-x' });
    expect(saved.status).toBe(303);
    const page = await (await browser.get(path)).text();
    expect(page).toContain('Secret DEPLOY_KEY saved.');
    expect(page).toContain('<code>DEPLOY_KEY</code>');
    expect(page).not.toContain('hunter2-x');
    const bad = await browser.post(`${path}/secrets`, { name: 'GITHUB_TOKEN', value: 'x' });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('reserved');
    expect(
      (await browser.post(`${path}/secrets/DEPLOY_KEY/delete`, { confirm: 'yes' })).status,
    ).toBe(303);
    const left = await kiln.app.services.ciSecrets.list({ repoId: repo.id, isRepoAdmin: true });
    expect(left).toEqual([]);
  });

  it('refuses a secret too short to mask, and takes variables of any length', async () => {
    const { path, browser } = await ownedRepository();
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 3 }),
        fc.constantFrom('', ' ', '\t'),
        async (v, pad) => {
          const refused = await browser.post(`${path}/secrets`, {
            name: 'PIN',
            value: `${pad}${v.trim()}${pad}`,
          });
          expect(refused.status).toBe(422);
          expect(await refused.text()).toContain(
            'masking a value that short in logs would reveal it',
          );
        },
      ),
      { numRuns: 15 },
    );
    expect((await browser.post(`${path}/variables`, { name: 'pin', value: 'ab' })).status).toBe(
      303,
    );
    expect((await browser.post(`${path}/secrets`, { name: 'PIN', value: 'abcd' })).status).toBe(
      303,
    );
  });

  it('saves, shows and deletes variables', async () => {
    const { path, browser } = await ownedRepository();
    expect(
      (await browser.post(`${path}/variables`, { name: 'region', value: 'eu <west>' })).status,
    ).toBe(303);
    const page = await (await browser.get(path)).text();
    expect(page).toContain('<code>REGION</code>');
    expect(page).toContain('eu &lt;west&gt;');
    expect((await browser.post(`${path}/variables`, { name: '9lives', value: 'x' })).status).toBe(
      422,
    );
    expect((await browser.post(`${path}/variables/REGION/delete`, { confirm: 'yes' })).status).toBe(
      303,
    );
    expect(await (await browser.get(path)).text()).not.toContain('<code>REGION</code>');
  });

  it('refuses forms without their CSRF token', async () => {
    const { path, browser } = await ownedRepository();
    expect(
      (await browser.post(`${path}/variables`, { name: 'A', value: 'b' }, { csrf: false })).status,
    ).toBe(403);
  });
});

describe('repository CI settings without SERVICE_SECRET_KEY', () => {
  let kiln: TestServer;
  beforeAll(async () => {
    kiln = await startTestServer();
  });
  afterAll(async () => {
    await kiln?.close();
  });

  it('says secrets are unavailable and refuses to store one', async () => {
    const { user, browser } = await signIn(kiln);
    const repo = await insertRepository(kiln, user);
    const path = `/repos/${user.handle}/${repo.name}/settings/ci`;
    expect(await (await browser.get(path)).text()).toContain('Secrets are unavailable');
    const refused = await browser.post(`${path}/secrets`, { name: 'TOKEN', value: 'x' });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('SERVICE_SECRET_KEY');
  });
});

describe('the caches on the CI settings page', () => {
  let kiln: TestServer;
  beforeAll(async () => {
    kiln = await startTestServer();
  });
  afterAll(async () => {
    await kiln?.close();
  });

  it('lists the repository’s caches and deletes one for its admins only', async () => {
    const owner = await signIn(kiln);
    const repo = await insertRepository(kiln, owner.user);
    const path = `/repos/${owner.user.handle}/${repo.name}/settings/ci`;
    const now = Date.now();
    const row = await kiln.app.database.db
      .insertInto('ci_caches')
      .values({
        repo_id: repo.id,
        scope: 'refs/heads/main',
        cache_key: 'npm-linux-<b>',
        key_lower: 'npm-linux-<b>',
        version: 'v1',
        status: 'ready',
        size: 3 * 1024 * 1024,
        link_secret: '00'.repeat(32),
        created_at: now,
        updated_at: now,
        last_accessed_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const page = await (await owner.browser.get(path)).text();
    expect(page).toContain('npm-linux-&lt;b&gt;');
    expect(page).toContain('3.0 MB');
    const stranger = await signIn(kiln);
    const deletion = `${path}/caches/${row.id}/delete`;
    expect((await stranger.browser.post(deletion, {})).status).toBe(404);
    expect((await owner.browser.post(deletion, {})).status).toBe(303);
    expect(await (await owner.browser.get(path)).text()).toContain('No caches.');
    expect((await owner.browser.post(deletion, {})).status).toBe(404);
  });
});
