/**
 * Pull request pages without JavaScript: the list with open/closed filters, the conversation
 * (body rendered, scripts inert), commits and files tabs, a comment on a diff line through the
 * line-number link and form, merging (and the conflict message), close and reopen, the new pull
 * form, and private repositories staying 404.
 */
import { describe, expect, it } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { branchesFromRoot } from '../support/branches.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { commitTo, makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: User;
let password: string;
let repo: Repository;
let base: string;

useWorld({ people: ['owner'], repos: [{ owner: 'owner', name: 'pages' }] }, async (world) => {
  kiln = world.kiln;
  ({ user: owner, password } = world.people.owner);
  repo = world.repos.pages;
  base = `/repos/${owner.handle}/pages`;
  await branchesFromRoot(
    kiln,
    repo,
    { files: { 'app.txt': 'one\ntwo\nthree\n' } },
    {
      feature: {
        files: { 'app.txt': 'one\nTWO\nthree\n', 'new.txt': 'hello\n' },
        message: 'Shout two',
      },
      clash: { files: { 'app.txt': 'uno\n' }, message: 'Clash' },
    },
  );
  await commitTo(kiln, repo, {
    branch: 'main',
    files: { 'other.txt': 'moved\n' },
    message: 'Move main',
  });
  await kiln.app.services.pulls.create(owner, owner.handle, 'pages', {
    title: 'Shout <b>two</b>',
    head: 'feature',
    base: 'main',
    body: '**Bold** move\n\n<script>alert(1)</script>',
  });
});

describe('pull request pages', () => {
  it('lists open pulls and renders the conversation with the body made safe', async () => {
    const browser = await signedIn(kiln, owner.handle, password);
    const list = await page(browser, `${base}/pulls`);
    expect(list).toContain('Shout &lt;b&gt;two&lt;/b&gt;');
    expect(list).toContain('1 Open');
    const conversation = await page(browser, `${base}/pulls/1`);
    expect(conversation).toContain('<strong>Bold</strong>');
    expect(conversation).not.toContain('<script>alert(1)</script>');
    expect(conversation).toContain('Merge pull request');
    expect(await page(browser, `${base}/pulls?state=closed`)).toContain('No closed pull requests');
  });

  it('shows the commits and the files changed', async () => {
    const browser = await signedIn(kiln, owner.handle, password);
    expect(await page(browser, `${base}/pulls/1/commits`)).toContain('Shout two');
    const files = await page(browser, `${base}/pulls/1/files`);
    expect(files).toContain('new.txt');
    expect(files).toContain('TWO');
    expect(files).toContain('Comment on line 2');
  });

  it('adds a comment on a diff line through the line link and its form', async () => {
    const browser = await signedIn(kiln, owner.handle, password);
    const form = await page(browser, `${base}/pulls/1/files?path=app.txt&side=RIGHT&line=2`);
    expect(form).toContain('id="new-comment"');
    const posted = await browser.post(`${base}/pulls/1/comments`, {
      path: 'app.txt',
      side: 'RIGHT',
      line: '2',
      body: 'Why <em>shout</em>? <script>alert(2)</script>',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toMatch(/\/pulls\/1\/files#comment-\d+$/);
    const files = await page(browser, `${base}/pulls/1/files`);
    expect(files).toContain('Why <em>shout</em>?');
    // The author's edit box holds the source, escaped; no script reaches the page.
    expect(files).not.toContain('<script>alert(2)');
    const outside = await browser.post(`${base}/pulls/1/comments`, {
      path: 'app.txt',
      side: 'RIGHT',
      line: '40',
      body: 'x',
    });
    expect(outside.status).toBe(303);
    expect(await page(browser, `${base}/pulls/1/files`)).toContain('is not part of the diff');
  });

  it('closes, reopens and merges through forms', async () => {
    const browser = await signedIn(kiln, owner.handle, password);
    await page(browser, `${base}/pulls/1`);
    const asked = await browser.post(`${base}/pulls/1/close`, {});
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Close this pull request?');
    expect(await page(browser, `${base}/pulls/1`)).toContain('State--open');
    expect((await browser.post(`${base}/pulls/1/close`, { confirm: 'yes' })).status).toBe(303);
    expect(await page(browser, `${base}/pulls/1`)).toContain('State--closed');
    expect((await browser.post(`${base}/pulls/1/reopen`, {})).status).toBe(303);
    const askedMerge = await browser.post(`${base}/pulls/1/merge`, {});
    expect(askedMerge.status).toBe(200);
    expect(await askedMerge.text()).toContain('Merge this pull request?');
    expect((await browser.post(`${base}/pulls/1/merge`, { confirm: 'yes' })).status).toBe(303);
    const merged = await page(browser, `${base}/pulls/1`);
    expect(merged).toContain('Pull request merged.');
    expect(merged).toContain('State--merged');
    const history = await page(browser, `${base}/commits/main`);
    expect(history).toContain('Merge pull request');
  });

  it('opens a pull from the form and reports a conflicting merge', async () => {
    const browser = await signedIn(kiln, owner.handle, password);
    expect(await page(browser, `${base}/pulls/new?head=clash`)).toContain('Open a pull request');
    const created = await browser.post(`${base}/pulls/new`, {
      base: 'main',
      head: 'clash',
      title: 'Clash',
      body: '',
    });
    expect(created.status).toBe(303);
    const location = created.headers.get('location') ?? '';
    expect(location).toMatch(/\/pulls\/2$/);
    expect((await browser.post(`${base}/pulls/2/merge`, { confirm: 'yes' })).status).toBe(303);
    const after = await page(browser, location);
    expect(after).toContain('cannot be merged');
    expect(after).toContain('State--open');
    const again = await browser.post(`${base}/pulls/new`, {
      base: 'main',
      head: 'main',
      title: 'Same',
      body: '',
    });
    expect(again.status).toBe(422);
  });

  it('keeps pull pages of a private repository 404 to outsiders', async () => {
    const hidden = await makeRepo(kiln, owner, 'hidden-pulls', { private: true });
    await commitTo(kiln, hidden, { branch: 'main', files: { 'a.txt': 'a' } });
    const { user: other, password: otherPassword } = await kiln.make.user();
    const browser = await signedIn(kiln, other.handle, otherPassword);
    await page(browser, `/repos/${owner.handle}/hidden-pulls/pulls`, 404);
    await page(browser, `/repos/${owner.handle}/hidden-pulls/pulls/1`, 404);
    expect(
      (await browser.post(`/repos/${owner.handle}/hidden-pulls/pulls/1/merge`, { confirm: 'yes' }))
        .status,
    ).toBe(404);
  });

  it('shows the signed-in person their recent pulls on the dashboard', async () => {
    const browser = await signedIn(kiln, owner.handle, password);
    expect(await page(browser, '/')).toContain('Shout &lt;b&gt;two&lt;/b&gt;');
  });
});
