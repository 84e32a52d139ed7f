/**
 * The compare page without JavaScript: the commits and diff of a head against a base (in the
 * repository, from a fork, or the default branch when only the head is named), the pickers'
 * GET form, opening a pull from it (and the service's refusals shown in the form), the link to
 * a pull already open, and private forks that stay out of sight.
 */
import { describe, expect, it } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { branchesFromRoot } from '../support/branches.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { commitTo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: User;
let ownerPassword: string;
let forker: User;
let forkerPassword: string;
let stranger: User;
let repo: Repository;
let base: string;

useWorld(
  { people: ['owner', 'forker', 'stranger'], repos: [{ owner: 'owner', name: 'cmp' }] },
  async (world) => {
    kiln = world.kiln;
    ({ user: owner, password: ownerPassword } = world.people.owner);
    ({ user: forker, password: forkerPassword } = world.people.forker);
    ({ user: stranger } = world.people.stranger);
    repo = world.repos.cmp;
    base = `/repos/${owner.handle}/cmp`;
    const { tips } = await branchesFromRoot(
      kiln,
      repo,
      { files: { 'a.txt': 'one\n' } },
      {
        feature: {
          files: { 'a.txt': 'one\n', 'feature.txt': 'shiny\n' },
          message: 'Add the shiny feature\n\nWith a body.',
        },
        multi: { files: { 'a.txt': 'two\n' }, message: 'First step' },
      },
    );
    await commitTo(kiln, repo, {
      branch: 'multi',
      parents: [tips.multi],
      files: { 'a.txt': 'three\n' },
      message: 'Second step',
    });
  },
);

describe('the compare page', () => {
  it('shows the commits and changes of a branch and prefills the title from its one commit', async () => {
    const browser = await signedIn(kiln, owner.handle, ownerPassword);
    const text = await page(browser, `${base}/compare/main...feature`);
    expect(text).toContain('1 commit');
    expect(text).toContain('Add the shiny feature');
    expect(text).toContain('feature.txt');
    expect(text).toContain('shiny');
    expect(text).toMatch(/id="pull-title"[^>]*value="Add the shiny feature"/);
    // The head alone is compared with the default branch.
    expect(await page(browser, `${base}/compare/feature`)).toContain('feature.txt');
  });

  it('names a head of several commits after its branch', async () => {
    const browser = await signedIn(kiln, owner.handle, ownerPassword);
    const text = await page(browser, `${base}/compare/main...multi`);
    expect(text).toContain('2 commits');
    expect(text).toMatch(/id="pull-title"[^>]*value="multi"/);
  });

  it('sends the pickers’ choice to the page’s own address', async () => {
    const browser = await signedIn(kiln, owner.handle, ownerPassword);
    const sent = await browser.get(
      `${base}/compare?base=main&head_repo=${owner.handle}/cmp&head=multi`,
    );
    expect(sent.status).toBe(302);
    expect(sent.headers.get('location')).toBe(`${base}/compare/main...multi`);
    const picker = await page(browser, `${base}/compare/main...multi`);
    expect(picker).toMatch(/<option value="multi" selected>/);
  });

  it('says when a branch is missing or there is nothing to compare', async () => {
    const browser = new Browser(kiln.url);
    expect(await page(browser, `${base}/compare/main...nope`)).toContain('There is no branch');
    expect(await page(browser, `${base}/compare/feature...main`)).toContain('anything to compare');
    expect(await page(browser, `${base}/compare/main...feature`)).toContain(
      'to open a pull request',
    );
  });

  it('opens a pull from the form, shows refusals in it, then links to the open pull', async () => {
    const browser = await signedIn(kiln, owner.handle, ownerPassword);
    await page(browser, `${base}/compare/main...multi`);
    const refused = await browser.post(`${base}/compare/main...multi`, { title: '   ', body: '' });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('title must be 1 to 255 characters');
    const opened = await browser.post(`${base}/compare/main...multi`, {
      title: 'Two steps',
      body: 'from the compare page',
    });
    expect(opened.status).toBe(303);
    const location = opened.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${base}/pulls/\\d+$`));
    const pull = await page(browser, location);
    expect(pull).toContain('Two steps');
    const again = await page(browser, `${base}/compare/main...multi`);
    expect(again).toContain('already open');
    expect(again).toContain(`href="${location}"`);
    expect(again).not.toContain('id="pull-title"');
  });

  it('compares and opens a pull from a fork named as owner:branch', async () => {
    const fork = await kiln.app.services.repos.fork(forker, owner.handle, 'cmp', {});
    await commitTo(kiln, fork.repo, {
      branch: 'from-fork',
      parents: [await kiln.app.services.pulls.branchTip(repo, 'main').then((sha) => sha ?? '')],
      files: { 'a.txt': 'one\n', 'fork.txt': 'forked\n' },
      message: 'Work in the fork',
    });
    const browser = await signedIn(kiln, forker.handle, forkerPassword);
    const text = await page(browser, `${base}/compare/main...${forker.handle}:from-fork`);
    expect(text).toContain('Work in the fork');
    expect(text).toContain('fork.txt');
    expect(text).toMatch(new RegExp(`<option value="${forker.handle}/cmp" selected>`));
    const opened = await browser.post(`${base}/compare/main...${forker.handle}:from-fork`, {
      title: 'From my fork',
      body: '',
    });
    expect(opened.status).toBe(303);
    const listed = await kiln.app.services.pulls.list(
      forker,
      owner.handle,
      'cmp',
      { state: 'open', sort: 'newest' },
      { limit: 10, offset: 0 },
    );
    const made = listed.items.find(({ pull }) => pull.title === 'From my fork');
    expect(made?.head?.id).toBe(fork.repo.id);
    expect(made?.pull.headBranch).toBe('from-fork');
  });

  it('keeps private repositories and forks out of sight', async () => {
    const secret = await kiln.app.services.repos.fork(stranger, owner.handle, 'cmp', {
      name: 'hidden-cmp',
    });
    await kiln.app.services.repos.updateSettings(stranger, stranger.handle, 'hidden-cmp', {
      private: true,
    });
    await commitTo(kiln, secret.repo, {
      branch: 'secret-branch',
      parents: [await kiln.app.services.pulls.branchTip(repo, 'main').then((sha) => sha ?? '')],
      files: { 'secret.txt': 'hush\n' },
    });
    const browser = await signedIn(kiln, owner.handle, ownerPassword);
    const picker = await page(browser, `${base}/compare/main...feature`);
    expect(picker).not.toContain('hidden-cmp');
    await page(browser, `${base}/compare/main...${stranger.handle}/hidden-cmp:secret-branch`, 404);
    const anonymous = new Browser(kiln.url);
    const { repo: closed } = await kiln.app.services.repos.create(owner, {
      name: 'closed-cmp',
      private: true,
    });
    await commitTo(kiln, closed, { branch: 'main', files: { 'x.txt': 'x\n' } });
    await page(anonymous, `/repos/${owner.handle}/closed-cmp/compare/main...main`, 404);
    await page(anonymous, `/${owner.handle}/closed-cmp/compare/main...main`, 404);
  });

  it('answers Gitea’s address of the page with a redirect', async () => {
    const sent = await new Browser(kiln.url).get(`/${owner.handle}/cmp/compare/main...feature`);
    expect(sent.status).toBe(302);
    expect(sent.headers.get('location')).toBe(`${base}/compare/main...feature`);
  });
});
