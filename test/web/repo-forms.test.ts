/**
 * The repository forms without JavaScript: each is a POST with the CSRF token whose effect is
 * checked in the domain and whose redirect is followed. Creation at /new (you or an organisation
 * you own), forking, and the settings page: description, visibility, default branch,
 * collaborators, protected branches and deletion behind a typed confirmation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { Browser as Anonymous, type Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: User;
let browser: Browser;

beforeAll(async () => {
  kiln = await startTestServer();
  const made = await kiln.make.user({ handle: 'olive' });
  owner = made.user;
  browser = await signedIn(kiln, 'olive', made.password);
});
afterAll(async () => {
  await kiln?.close();
});

const flashOf = async (path: string) => page(browser, path);

describe('/new', () => {
  it('sends people who are not signed in to the sign-in page', async () => {
    const response = await new Anonymous(kiln.url).get('/new');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?redirect=%2Fnew');
  });

  it('creates a repository and redirects to it', async () => {
    const form = await page(browser, '/new');
    expect(form).toContain('<option value="olive" selected>olive</option>');
    const response = await browser.post('/new', {
      owner: 'olive',
      name: 'made-here',
      description: 'From the form',
      visibility: 'private',
      auto_init: 'on',
      default_branch: 'trunk',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/repos/olive/made-here');
    const { repo } = await kiln.app.services.repos.get(owner, 'olive', 'made-here');
    expect(repo.private).toBe(true);
    expect(repo.description).toBe('From the form');
    expect(await kiln.app.services.repos.defaultBranch(repo)).toBe('trunk');
    const home = await page(browser, '/repos/olive/made-here');
    expect(home).toContain('README.md');
    expect(home).toContain('Private');
  });

  it('creates in an organisation the person owns, and not in others', async () => {
    const org = await kiln.make.org(owner, 'olive-org');
    expect(await page(browser, '/new')).toContain(`<option value="${org.handle}"`);
    const made = await browser.post('/new', { owner: org.handle, name: 'org-repo' });
    expect(made.headers.get('location')).toBe(`/repos/${org.handle}/org-repo`);
    const { user: stranger } = await kiln.make.user();
    const foreign = await kiln.make.org(stranger);
    const refused = await browser.post('/new', { owner: foreign.handle, name: 'x' });
    expect(refused.status).toBe(422);
  });

  it('shows the form again with the error for a taken or bad name', async () => {
    const taken = await browser.post('/new', { owner: 'olive', name: 'made-here' });
    expect(taken.status).toBe(409);
    const text = await taken.text();
    expect(text).toContain('already exists');
    expect(text).toContain('value="made-here"');
    const bad = await browser.post('/new', { owner: 'olive', name: 'bad name!' });
    expect(bad.status).toBe(422);
  });

  it('refuses a post without the CSRF token', async () => {
    const response = await browser.post('/new', { name: 'nocsrf' }, { csrf: false });
    expect(response.status).toBe(403);
  });
});

describe('fork', () => {
  it('forks into your account and links back to the parent', async () => {
    const { user: other } = await kiln.make.user({ handle: 'upstream' });
    const source = await makeRepo(kiln, other, 'lib', { description: 'A library' });
    await commitTo(kiln, source, { branch: 'main', files: { 'a.txt': 'a\n' } });
    const home = await page(browser, '/repos/upstream/lib');
    expect(home).toContain('action="/repos/upstream/lib/fork"');
    const response = await browser.post('/repos/upstream/lib/fork', { owner: 'olive' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/repos/olive/lib');
    const fork = await page(browser, '/repos/olive/lib');
    expect(fork).toContain('forked from <a href="/repos/upstream/lib">upstream/lib</a>');
    expect(fork).toContain('Forked upstream/lib.');
    expect(fork).toContain('a.txt');
    // A second fork of the same name is refused with a message, not an error page.
    const again = await browser.post('/repos/upstream/lib/fork', {});
    expect(again.status).toBe(303);
    expect(await page(browser, '/repos/upstream/lib')).toContain('already exists');
  });

  it('offers to fork your own repository only into your organisations', async () => {
    const { user: solo, password } = await kiln.make.user();
    await makeRepo(kiln, solo, 'mine');
    const soloBrowser = await signedIn(kiln, solo.handle, password);
    expect(await page(soloBrowser, `/repos/${solo.handle}/mine`)).not.toContain('/fork"');
    await makeRepo(kiln, owner, 'mine');
    const home = await page(browser, '/repos/olive/mine');
    expect(home).toContain('<input type="hidden" name="owner" value="olive-org">');
    const response = await browser.post('/repos/olive/mine/fork', { owner: 'olive-org' });
    expect(response.headers.get('location')).toBe('/repos/olive-org/mine');
  });
});

describe('repository settings', () => {
  it('saves description, visibility and default branch', async () => {
    const repo = await makeRepo(kiln, owner, 'configurable');
    await commitTo(kiln, repo, { branch: 'main', files: { a: '1\n' } });
    await commitTo(kiln, repo, { branch: 'develop', files: { b: '2\n' } });
    const form = await page(browser, '/repos/olive/configurable/settings');
    expect(form).toContain('<option value="develop"');
    const response = await browser.post('/repos/olive/configurable/settings', {
      description: 'Changed here',
      visibility: 'private',
      default_branch: 'develop',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/repos/olive/configurable/settings#general');
    const { repo: saved } = await kiln.app.services.repos.get(owner, 'olive', 'configurable');
    expect(saved.description).toBe('Changed here');
    expect(saved.private).toBe(true);
    expect(await kiln.app.services.repos.defaultBranch(saved)).toBe('develop');
    expect(await flashOf('/repos/olive/configurable/settings')).toContain('Settings saved.');
  });

  it('adds and removes collaborators', async () => {
    await makeRepo(kiln, owner, 'team');
    const { user: friend } = await kiln.make.user({ handle: 'friend' });
    const add = await browser.post('/repos/olive/team/settings/collaborators', {
      username: 'friend',
      permission: 'read',
    });
    expect(add.status).toBe(303);
    const listed = await kiln.app.services.collaborators.list(owner, 'olive', 'team');
    expect(listed.map((row) => [row.user.handle, row.permission])).toEqual([['friend', 'read']]);
    const settings = await page(browser, '/repos/olive/team/settings');
    expect(settings).toContain('friend now has read access.');
    expect(settings).toContain('aria-label="Remove friend"');
    expect(settings).not.toContain(friend.email);

    const unknown = await browser.post('/repos/olive/team/settings/collaborators', {
      username: 'nobody-here',
      permission: 'write',
    });
    expect(unknown.status).toBe(303);
    expect(await page(browser, '/repos/olive/team/settings')).toContain('user does not exist');

    const remove = await browser.post('/repos/olive/team/settings/collaborators/delete', {
      username: 'friend',
    });
    expect(remove.status).toBe(303);
    expect(await kiln.app.services.collaborators.list(owner, 'olive', 'team')).toEqual([]);
  });

  it('protects and unprotects branches', async () => {
    const repo = await makeRepo(kiln, owner, 'guarded');
    await commitTo(kiln, repo, { branch: 'release/1.x', files: { a: '1\n' } });
    await browser.post('/repos/olive/guarded/settings/branches', { branch: 'release/1.x' });
    expect(await kiln.app.services.protectedBranches.names(repo)).toEqual(['release/1.x']);
    expect(await page(browser, '/repos/olive/guarded/settings')).toContain(
      'aria-label="Unprotect release/1.x"',
    );
    const bad = await browser.post('/repos/olive/guarded/settings/branches', { branch: 'a..b' });
    expect(bad.status).toBe(303);
    expect(await page(browser, '/repos/olive/guarded/settings')).toContain('not a valid branch');
    await browser.post('/repos/olive/guarded/settings/branches/delete', { branch: 'release/1.x' });
    expect(await kiln.app.services.protectedBranches.names(repo)).toEqual([]);
  });

  it('deletes only after the full name is typed', async () => {
    const repo = await makeRepo(kiln, owner, 'doomed');
    await commitTo(kiln, repo, { branch: 'main', files: { a: '1\n' } });
    await page(browser, '/repos/olive/doomed/commits/main');
    const asked = await browser.post('/repos/olive/doomed/settings/delete', {});
    expect(asked.status).toBe(200);
    const question = await asked.text();
    expect(question).toContain('Delete olive/doomed?');
    expect(question).toContain('Type <strong>olive/doomed</strong> to confirm');
    const wrong = await browser.post('/repos/olive/doomed/settings/delete', { confirm: 'doomed' });
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toContain('Type olive/doomed to confirm the deletion.');
    expect((await browser.get('/repos/olive/doomed')).status).toBe(200);
    const right = await browser.post('/repos/olive/doomed/settings/delete', {
      confirm: 'olive/doomed',
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/olive');
    expect(await page(browser, '/olive')).toContain('olive/doomed was deleted.');
    expect((await browser.get('/repos/olive/doomed')).status).toBe(404);
    // A new repository of the same name starts empty: nothing is read from the old one.
    await makeRepo(kiln, owner, 'doomed');
    expect(await page(browser, '/repos/olive/doomed')).toContain('This repository is empty.');
  });

  it('is 403 for readers, 404 for outsiders of private repositories, sign-in for anonymous', async () => {
    const { user: reader, password } = await kiln.make.user();
    await makeRepo(kiln, owner, 'open-one');
    await kiln.app.services.repos.create(owner, { name: 'closed-one', private: true });
    const readerBrowser = await signedIn(kiln, reader.handle, password);
    expect((await readerBrowser.get('/repos/olive/open-one/settings')).status).toBe(403);
    expect((await readerBrowser.get('/repos/olive/closed-one/settings')).status).toBe(404);
    const post = await readerBrowser.post('/repos/olive/open-one/settings', { description: 'x' });
    expect(post.status).toBe(403);
    const deletion = await readerBrowser.post('/repos/olive/closed-one/settings/delete', {
      confirm: 'olive/closed-one',
    });
    expect(deletion.status).toBe(404);
    const anonymous = await new Anonymous(kiln.url).get('/repos/olive/open-one/settings');
    expect(anonymous.status).toBe(303);
  });
});
