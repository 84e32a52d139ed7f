/**
 * Releases and tags in the web, over real HTTP without JavaScript: every release's `html_url`
 * from the REST API is a page; writers draft (with a preview), edit and delete releases and
 * create and delete tags through CSRF-checked forms; readers see no controls and are refused;
 * a private repository's releases are 404 to outsiders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser as Anonymous, apiCall, type Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let token: string;
let writer: Browser;
let reader: Browser;
let outsider: Browser;
let mainSha: string;

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false' });
  const made = await kiln.make.userWithToken({ handle: 'rhea' });
  token = made.token;
  const owner = made.user;
  const { repo } = await kiln.app.services.repos.create(owner, { name: 'ship' });
  mainSha = await commitTo(kiln, repo, { branch: 'main', files: { 'README.md': '# Ship\n' } });
  await commitTo(kiln, repo, { branch: 'next', files: { 'NEXT.md': 'next\n' } });
  const { repo: hidden } = await kiln.app.services.repos.create(owner, {
    name: 'hidden',
    private: true,
  });
  await commitTo(kiln, hidden, { branch: 'main', files: { 'a.txt': 'a\n' } });
  await kiln.app.services.releases.create(owner, 'rhea', 'hidden', { tagName: 'v9' });
  writer = await signedIn(kiln, 'rhea', made.password);
  const friend = await kiln.make.user();
  await kiln.app.services.collaborators.put(owner, 'rhea', 'ship', friend.user.handle, 'read');
  reader = await signedIn(kiln, friend.user.handle, friend.password);
  const stranger = await kiln.make.user();
  outsider = await signedIn(kiln, stranger.user.handle, stranger.password);
});
afterAll(async () => {
  await kiln?.close();
});

describe('the html_url of a release', () => {
  // Slashes, reserved URL characters and non-ASCII letters are all valid in git tag names.
  const TAGS = [
    'v1.0.0',
    'release/2024-05',
    'v2.0+build.7',
    '100%',
    'a#b=c;d',
    'x&y<z>',
    'ünï-cödé',
  ];

  it('answers 200 with the release for every tag the API publishes', async () => {
    for (const tag of TAGS) {
      const created = await apiCall(kiln.url, '/repos/rhea/ship/releases', {
        method: 'POST',
        token,
        body: { tag_name: tag, target_commitish: 'main', name: `Title ${tag}`, body: '**bold**' },
      });
      expect(created.status, tag).toBe(201);
      const htmlUrl: string = created.body.html_url;
      expect(htmlUrl.startsWith(`${kiln.url}/repos/rhea/ship/releases/tag/`)).toBe(true);
      const response = await fetch(htmlUrl);
      const text = await response.text();
      expect(response.status, htmlUrl).toBe(200);
      const escaped = tag.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      expect(text).toContain(`Title ${escaped}`);
      expect(text).toContain('<strong>bold</strong>');
      expect(text).toContain(mainSha.slice(0, 7));
      // The source archives are the ones the API record names.
      expect(text).toContain(`href="${new URL(created.body.zipball_url).pathname}"`);
      expect(text).toContain(`href="${new URL(created.body.tarball_url).pathname}"`);
    }
  });

  it('is 404 for a tag without a release', async () => {
    await page(writer, '/repos/rhea/ship/releases/tag/no-such-tag', 404);
  });
});

describe('writers', () => {
  it('see the way to draft a release and the tag form', async () => {
    expect(await page(writer, '/repos/rhea/ship/releases')).toContain('Draft a new release');
    const form = await page(writer, '/repos/rhea/ship/releases/new');
    expect(form).toContain('<option value="main" selected>main</option>');
    expect(form).toContain('<option value="next"');
    expect(await page(writer, '/repos/rhea/ship/tags')).toContain('Create a tag');
  });

  it('preview the notes, then publish a release with a new tag from a branch', async () => {
    const values = {
      tag: 'v3.0-rc1',
      target: 'next',
      title: 'Third',
      body: '# Notes\n\n*new*',
      prerelease: 'on',
    };
    const preview = await writer.post('/repos/rhea/ship/releases/new', {
      ...values,
      preview: '1',
    });
    expect(preview.status).toBe(200);
    const previewed = await preview.text();
    expect(previewed).toContain('<em>new</em>');
    expect(previewed).toContain('value="v3.0-rc1"');
    expect(
      await kiln.app.services.releases.list(undefined, 'rhea', 'ship', { limit: 50, offset: 0 }),
    ).toMatchObject({ total: 7 });

    const published = await writer.post('/repos/rhea/ship/releases/new', values);
    expect(published.status).toBe(303);
    expect(published.headers.get('location')).toBe('/repos/rhea/ship/releases/tag/v3.0-rc1');
    const shown = await page(writer, '/repos/rhea/ship/releases/tag/v3.0-rc1');
    expect(shown).toContain('Release v3.0-rc1 published.');
    expect(shown).toContain('Pre-release');
    const api = await apiCall(kiln.url, '/repos/rhea/ship/releases/tags/v3.0-rc1');
    expect(api.body).toMatchObject({ name: 'Third', prerelease: true, target_commitish: 'next' });
    const branch = await apiCall(kiln.url, '/repos/rhea/ship/branches/next');
    expect(shown).toContain(branch.body.commit.id.slice(0, 7));
  });

  it('get the form back with the reason for a bad tag or a taken one', async () => {
    const bad = await writer.post('/repos/rhea/ship/releases/new', {
      tag: 'bad..tag',
      target: 'main',
    });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('is not a valid tag name');
    const taken = await writer.post('/repos/rhea/ship/releases/new', {
      tag: 'v1.0.0',
      target: 'main',
    });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('value="v1.0.0"');
  });

  it('edit a release and delete it, keeping its tag', async () => {
    const form = await page(writer, '/repos/rhea/ship/releases/edit/v3.0-rc1');
    expect(form).toContain('value="Third"');
    const edited = await writer.post('/repos/rhea/ship/releases/edit/v3.0-rc1', {
      tag: 'v3.0-rc1',
      target: 'next',
      title: 'Third, final',
      body: 'done',
    });
    expect(edited.status).toBe(303);
    const api = await apiCall(kiln.url, '/repos/rhea/ship/releases/tags/v3.0-rc1');
    expect(api.body).toMatchObject({ name: 'Third, final', prerelease: false, body: 'done' });

    const asked = await writer.post('/repos/rhea/ship/releases/delete', { tag: 'v3.0-rc1' });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Delete release v3.0-rc1?');
    expect((await apiCall(kiln.url, '/repos/rhea/ship/releases/tags/v3.0-rc1')).status).toBe(200);
    const deleted = await writer.post('/repos/rhea/ship/releases/delete', {
      tag: 'v3.0-rc1',
      confirm: 'yes',
    });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/repos/rhea/ship/releases');
    expect((await apiCall(kiln.url, '/repos/rhea/ship/releases/tags/v3.0-rc1')).status).toBe(404);
    expect(await page(writer, '/repos/rhea/ship/tags')).toContain('v3.0-rc1');
  });

  it('create and delete tags; a tag with a release stays', async () => {
    const created = await writer.post('/repos/rhea/ship/tags', { tag: 'pin/one', target: mainSha });
    expect(created.status).toBe(303);
    const list = await page(writer, '/repos/rhea/ship/tags');
    expect(list).toContain('Tag pin/one created.');
    expect(list).toContain('Delete tag pin/one');
    const again = await writer.post('/repos/rhea/ship/tags', { tag: 'pin/one', target: 'main' });
    expect(again.status).toBe(409);
    const nowhere = await writer.post('/repos/rhea/ship/tags', { tag: 'pin/two', target: 'nope' });
    expect(nowhere.status).toBe(422);

    const asked = await writer.post('/repos/rhea/ship/tags/delete', { tag: 'pin/one' });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Delete tag pin/one?');
    const removed = await writer.post('/repos/rhea/ship/tags/delete', {
      tag: 'pin/one',
      confirm: 'yes',
    });
    expect(removed.status).toBe(303);
    const after = await page(writer, '/repos/rhea/ship/tags');
    expect(after).toContain('Tag pin/one deleted.');
    expect(after).not.toContain('Delete tag pin/one');
    const kept = await writer.post('/repos/rhea/ship/tags/delete', {
      tag: 'v1.0.0',
      confirm: 'yes',
    });
    expect(kept.status).toBe(409);
    expect(await kept.text()).toContain('delete the release first');
  });

  it('are refused without the CSRF token', async () => {
    const response = await writer.post(
      '/repos/rhea/ship/tags',
      { tag: 'x', target: 'main' },
      { csrf: false },
    );
    expect(response.status).toBe(403);
  });
});

describe('readers', () => {
  it('see no controls', async () => {
    expect(await page(reader, '/repos/rhea/ship/releases')).not.toContain('Draft a new release');
    const release = await page(reader, '/repos/rhea/ship/releases/tag/v1.0.0');
    expect(release).not.toContain('/releases/edit/');
    expect(release).not.toContain('/releases/delete');
    const tags = await page(reader, '/repos/rhea/ship/tags');
    expect(tags).not.toContain('Create a tag');
    expect(tags).not.toContain('/tags/delete');
  });

  it('are refused on every form with 403', async () => {
    await page(reader, '/repos/rhea/ship/releases/new', 403);
    await page(reader, '/repos/rhea/ship/releases/edit/v1.0.0', 403);
    const posts: Array<[string, Record<string, string>]> = [
      ['/repos/rhea/ship/releases/new', { tag: 'r1', target: 'main' }],
      ['/repos/rhea/ship/releases/edit/v1.0.0', { tag: 'v1.0.0', title: 'hijacked' }],
      ['/repos/rhea/ship/releases/delete', { tag: 'v1.0.0' }],
      ['/repos/rhea/ship/tags', { tag: 'r1', target: 'main' }],
      ['/repos/rhea/ship/tags/delete', { tag: 'v1.0.0' }],
    ];
    for (const [path, form] of posts) {
      expect((await reader.post(path, form)).status, path).toBe(403);
    }
    const api = await apiCall(kiln.url, '/repos/rhea/ship/releases/tags/v1.0.0');
    expect(api.body.name).toBe('Title v1.0.0');
  });
});

describe('a private repository', () => {
  it('is 404 to outsiders and to anonymous visitors, on pages and forms', async () => {
    await page(writer, '/repos/rhea/hidden/releases/tag/v9');
    await page(outsider, '/repos/rhea/hidden/releases/tag/v9', 404);
    await page(new Anonymous(kiln.url), '/repos/rhea/hidden/releases/tag/v9', 404);
    await page(outsider, '/repos/rhea/hidden/releases/new', 404);
    const refused = await outsider.post('/repos/rhea/hidden/releases/delete', { tag: 'v9' });
    expect(refused.status).toBe(404);
    const tag = await outsider.post('/repos/rhea/hidden/tags', { tag: 'x', target: 'main' });
    expect(tag.status).toBe(404);
  });
});
