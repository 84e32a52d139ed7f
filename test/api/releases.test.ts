/**
 * Releases over REST: create (making a missing tag, using an existing one), list newest first,
 * latest, read/edit/delete by tag and by the folded id tea uses; no drafts, no assets; deleting
 * keeps the tag; rows go with their repository; write access is needed to change anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRef } from '../../src/git/refs.ts';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addCommit, addTag, apiClient, type Caller, caller, createRepo } from './fixtures.ts';

let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;
let bob: Caller;

beforeAll(async () => {
  kiln = await startTestServer();
  api = apiClient(kiln);
  alice = await caller(kiln);
  bob = await caller(kiln);
});
afterAll(async () => {
  await kiln?.close();
});

const tagSha = (owner: string, name: string, tag: string) =>
  findRef(kiln.app.git.paths.resolve({ owner, name }), `refs/tags/${tag}`);

async function create(repo: string, body: Record<string, unknown>, token = alice.token) {
  return api(`/repos/${alice.handle}/${repo}/releases`, { token, method: 'POST', body });
}

describe('POST /repos/{owner}/{name}/releases', () => {
  it('makes a missing tag at the default branch and answers 201 with a Release', async () => {
    await createRepo(kiln, alice, 'app');
    const main = await addCommit(kiln, alice.handle, 'app', 'main');
    const response = await create('app', { tag_name: 'v1.0.0', name: 'First', body: 'notes' });
    expect(response.status).toBe(201);
    const release = await json(response);
    const base = `${kiln.url}/repos/${alice.handle}/app`;
    expect(release).toMatchObject({
      tag_name: 'v1.0.0',
      target_commitish: 'main',
      name: 'First',
      body: 'notes',
      draft: false,
      prerelease: false,
      assets: [],
      html_url: `${base}/releases/tag/v1.0.0`,
      zipball_url: `${base}/archive/v1.0.0.zip`,
      tarball_url: `${base}/archive/v1.0.0.tar.gz`,
      url: `${kiln.url}/api/v1/repos/${alice.handle}/app/releases/${release.id}`,
      upload_url: `${kiln.url}/api/v1/repos/${alice.handle}/app/releases/${release.id}/assets`,
    });
    expect(release.published_at).toBe(release.created_at);
    expect(release.author.login).toBe(alice.handle);
    expect(release.author).not.toHaveProperty('email');
    expect(Number.isSafeInteger(release.id)).toBe(true);
    expect(await tagSha(alice.handle, 'app', 'v1.0.0')).toBe(main);
  });

  it('makes the tag at target_commitish, a branch or a sha', async () => {
    await createRepo(kiln, alice, 'targets');
    const first = await addCommit(kiln, alice.handle, 'targets', 'main');
    const side = await addCommit(kiln, alice.handle, 'targets', 'release/2.x');
    await addCommit(kiln, alice.handle, 'targets', 'main');
    expect(
      (await create('targets', { tag_name: 'v2.0', target_commitish: 'release/2.x' })).status,
    ).toBe(201);
    expect(await tagSha(alice.handle, 'targets', 'v2.0')).toBe(side);
    expect(
      (await create('targets', { tag_name: 'v0.1', target_commitish: first.slice(0, 10) })).status,
    ).toBe(201);
    expect(await tagSha(alice.handle, 'targets', 'v0.1')).toBe(first);
  });

  it('uses an existing tag as it is', async () => {
    await createRepo(kiln, alice, 'tagged');
    const old = await addCommit(kiln, alice.handle, 'tagged', 'main');
    await addTag(kiln, alice.handle, 'tagged', 'v0.9', old);
    await addCommit(kiln, alice.handle, 'tagged', 'main');
    const response = await create('tagged', { tag_name: 'v0.9', target_commitish: 'main' });
    expect(response.status).toBe(201);
    expect(await tagSha(alice.handle, 'tagged', 'v0.9')).toBe(old);
  });

  it('refuses a second release for one tag with 409', async () => {
    await createRepo(kiln, alice, 'twice');
    expect((await create('twice', { tag_name: 'v1' })).status).toBe(201);
    const again = await create('twice', { tag_name: 'v1' });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ message: expect.stringContaining('v1') });
  });

  it('refuses drafts with 422 and stores nothing', async () => {
    await createRepo(kiln, alice, 'drafts');
    const response = await create('drafts', { tag_name: 'v1', draft: true });
    expect(response.status).toBe(422);
    expect(await tagSha(alice.handle, 'drafts', 'v1')).toBeUndefined();
    expect(await json(await api(`/repos/${alice.handle}/drafts/releases`))).toEqual([]);
  });

  it('stores nothing when the tag cannot be made', async () => {
    await createRepo(kiln, alice, 'broken');
    await addTag(
      kiln,
      alice.handle,
      'broken',
      'v1',
      await addCommit(kiln, alice.handle, 'broken', 'main'),
    );
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ tag_name: 'v2', target_commitish: 'no-such-branch' }, 404],
      [{ tag_name: 'v2', target_commitish: 'main~1' }, 422],
      [{ tag_name: 'bad..name' }, 422],
      [{ tag_name: '-x' }, 422],
      [{ tag_name: 'v1/x' }, 409],
    ];
    for (const [body, status] of cases) {
      const response = await create('broken', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
    }
    const list = await json(await api(`/repos/${alice.handle}/broken/releases`));
    expect(list).toEqual([]);
    expect(await tagSha(alice.handle, 'broken', 'v2')).toBeUndefined();
  });

  it('answers 422 for an empty repository', async () => {
    await createRepo(kiln, alice, 'void', { autoInit: false });
    expect((await create('void', { tag_name: 'v1' })).status).toBe(422);
  });

  it('needs write access: 401 anonymous, 403 reader, 404 when invisible', async () => {
    await createRepo(kiln, alice, 'guarded');
    await createRepo(kiln, alice, 'hidden', { private: true });
    expect(
      (
        await api(`/repos/${alice.handle}/guarded/releases`, {
          method: 'POST',
          body: { tag_name: 'v1' },
        })
      ).status,
    ).toBe(401);
    expect((await create('guarded', { tag_name: 'v1' }, bob.token)).status).toBe(403);
    expect((await create('hidden', { tag_name: 'v1' }, bob.token)).status).toBe(404);
  });
});

describe('reading releases', () => {
  let ids: number[] = [];
  beforeAll(async () => {
    await createRepo(kiln, alice, 'many');
    ids = [];
    for (const [tag, prerelease] of [
      ['v1', false],
      ['v2', false],
      ['v3-rc', true],
      ['deep/v4', false],
      ['v5-beta', true],
    ] as const) {
      const response = await create('many', { tag_name: tag, prerelease });
      expect(response.status).toBe(201);
      ids.push((await json(response)).id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  it('lists newest first with paging headers', async () => {
    const response = await api(`/repos/${alice.handle}/many/releases?limit=2`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-total-count')).toBe('5');
    expect(response.headers.get('link')).toContain('rel="next"');
    expect((await json(response)).map((r: { tag_name: string }) => r.tag_name)).toEqual([
      'v5-beta',
      'deep/v4',
    ]);
  });

  it('filters by pre-release and answers [] for drafts', async () => {
    const pre = await json(await api(`/repos/${alice.handle}/many/releases?pre-release=true`));
    expect(pre.map((r: { tag_name: string }) => r.tag_name)).toEqual(['v5-beta', 'v3-rc']);
    const drafts = await api(`/repos/${alice.handle}/many/releases?draft=true`);
    expect(await json(drafts)).toEqual([]);
  });

  it('finds the latest non-prerelease', async () => {
    const latest = await json(await api(`/repos/${alice.handle}/many/releases/latest`));
    expect(latest.tag_name).toBe('deep/v4');
  });

  it('answers 404 for latest when every release is a prerelease or there is none', async () => {
    await createRepo(kiln, alice, 'pre-only');
    expect((await api(`/repos/${alice.handle}/pre-only/releases/latest`)).status).toBe(404);
    await create('pre-only', { tag_name: 'v1-rc', prerelease: true });
    expect((await api(`/repos/${alice.handle}/pre-only/releases/latest`)).status).toBe(404);
  });

  it.each(['deep/v4', 'deep%2Fv4'])('gets a release by tag %s', async (path) => {
    const response = await api(`/repos/${alice.handle}/many/releases/tags/${path}`);
    expect(response.status).toBe(200);
    const release = await json(response);
    expect(release.tag_name).toBe('deep/v4');
    expect(release.html_url).toBe(`${kiln.url}/repos/${alice.handle}/many/releases/tag/deep/v4`);
  });

  it('gets a release by its folded id', async () => {
    const response = await api(`/repos/${alice.handle}/many/releases/${ids[0]}`);
    expect(response.status).toBe(200);
    expect((await json(response)).tag_name).toBe('v1');
  });

  it.each(['v9', '', 'v1%2F..%2Fv2'])('answers 404 for an unknown tag %j', async (tag) => {
    expect((await api(`/repos/${alice.handle}/many/releases/tags/${tag}`)).status).toBe(404);
  });

  it.each(['1', '0', 'abc', '-1', '99999999999999999999'])(
    'answers 404 for an unknown id %s',
    async (id) => {
      expect((await api(`/repos/${alice.handle}/many/releases/${id}`)).status).toBe(404);
    },
  );

  it('never finds a release by the id of one in another repository', async () => {
    await createRepo(kiln, alice, 'other');
    expect((await api(`/repos/${alice.handle}/other/releases/${ids[0]}`)).status).toBe(404);
  });
});

describe('editing and deleting', () => {
  it('edits by tag and by id; empty strings leave fields alone', async () => {
    await createRepo(kiln, alice, 'edits');
    const made = await json(await create('edits', { tag_name: 'v1', name: 'One', body: 'b' }));
    const byTag = await api(`/repos/${alice.handle}/edits/releases/tags/v1`, {
      token: alice.token,
      method: 'PATCH',
      body: { name: 'Uno', prerelease: true, tag_name: '', target_commitish: '' },
    });
    expect(byTag.status).toBe(200);
    expect(await json(byTag)).toMatchObject({
      id: made.id,
      name: 'Uno',
      body: 'b',
      prerelease: true,
      tag_name: 'v1',
    });
    const byId = await api(`/repos/${alice.handle}/edits/releases/${made.id}`, {
      token: alice.token,
      method: 'PATCH',
      body: { body: '', prerelease: false },
    });
    expect(await json(byId)).toMatchObject({
      id: made.id,
      name: 'Uno',
      body: '',
      prerelease: false,
    });
  });

  it('moves a release to a new tag, making it; a taken tag is 409; drafts 422', async () => {
    await createRepo(kiln, alice, 'moves');
    const made = await json(await create('moves', { tag_name: 'v1' }));
    await create('moves', { tag_name: 'v2' });
    const moved = await api(`/repos/${alice.handle}/moves/releases/${made.id}`, {
      token: alice.token,
      method: 'PATCH',
      body: { tag_name: 'v1.0.1' },
    });
    expect(moved.status).toBe(200);
    expect((await json(moved)).tag_name).toBe('v1.0.1');
    expect(await tagSha(alice.handle, 'moves', 'v1.0.1')).toBeDefined();
    expect(await tagSha(alice.handle, 'moves', 'v1')).toBeDefined();
    const taken = await api(`/repos/${alice.handle}/moves/releases/tags/v1.0.1`, {
      token: alice.token,
      method: 'PATCH',
      body: { tag_name: 'v2' },
    });
    expect(taken.status).toBe(409);
    const draft = await api(`/repos/${alice.handle}/moves/releases/tags/v2`, {
      token: alice.token,
      method: 'PATCH',
      body: { draft: true },
    });
    expect(draft.status).toBe(422);
  });

  it('deletes by tag and by id with 204, keeping the tags', async () => {
    await createRepo(kiln, alice, 'deletes');
    const one = await json(await create('deletes', { tag_name: 'v1' }));
    await create('deletes', { tag_name: 'x/v2' });
    expect(
      (
        await api(`/repos/${alice.handle}/deletes/releases/${one.id}`, {
          token: bob.token,
          method: 'DELETE',
        })
      ).status,
    ).toBe(403);
    const byId = await api(`/repos/${alice.handle}/deletes/releases/${one.id}`, {
      token: alice.token,
      method: 'DELETE',
    });
    expect(byId.status).toBe(204);
    const byTag = await api(`/repos/${alice.handle}/deletes/releases/tags/x%2Fv2`, {
      token: alice.token,
      method: 'DELETE',
    });
    expect(byTag.status).toBe(204);
    expect(await json(await api(`/repos/${alice.handle}/deletes/releases`))).toEqual([]);
    expect(await tagSha(alice.handle, 'deletes', 'v1')).toBeDefined();
    expect(await tagSha(alice.handle, 'deletes', 'x/v2')).toBeDefined();
    expect(
      (
        await api(`/repos/${alice.handle}/deletes/releases/tags/v1`, {
          token: alice.token,
          method: 'DELETE',
        })
      ).status,
    ).toBe(404);
  });

  it('removes releases with their repository', async () => {
    await createRepo(kiln, alice, 'doomed');
    await create('doomed', { tag_name: 'v1' });
    const deleted = await api(`/repos/${alice.handle}/doomed`, {
      token: alice.token,
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
    const rows = await kiln.app.database.db.selectFrom('releases').select('id').execute();
    const repoRows = await kiln.app.database.db
      .selectFrom('releases')
      .innerJoin('repositories', 'repositories.id', 'releases.repo_id')
      .select('releases.id')
      .execute();
    expect(rows.length).toBe(repoRows.length);
    await createRepo(kiln, alice, 'doomed');
    expect(await json(await api(`/repos/${alice.handle}/doomed/releases`))).toEqual([]);
  });
});
