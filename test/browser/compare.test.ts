/**
 * Opening a pull from a fork in a real Chromium, the way GitHub and Gitea users do: push a
 * branch to the fork with the git CLI, pick the fork and its branch on the base repository's
 * compare page, open the pull from there, and see the pull page's script fill in that it
 * merges cleanly. Pages must raise no console error or CSP violation.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import { type Chromium, screenshot } from './chromium.ts';
import { type WorkTree, withToken } from './git-cli.ts';
import { browserEnabled, useBrowserWorld } from './suite.ts';

let kiln: TestServer;
let chrome: Chromium;
let work: WorkTree;

useBrowserWorld((world) => {
  ({ kiln, chrome, work } = world);
});

describe.runIf(browserEnabled)('the compare page in a browser', () => {
  it('opens a pull from a fork through the pickers', async () => {
    const { page, problems } = chrome;
    const url = (path: string) => kiln.url + path;
    const { user: maker } = await kiln.make.user({
      handle: 'maker',
      password: 'a long enough secret',
    });
    const { user: helper } = await kiln.make.user({
      handle: 'helper',
      password: 'a long enough secret',
    });
    const makerToken = await kiln.make.token(maker);
    const helperToken = await kiln.make.token(helper);
    await kiln.app.services.repos.create(maker, { name: 'gadgets' });
    work.write('gadget.txt', 'cog\nwheel\n');
    await work.git('init', '-q', '-b', 'main');
    await work.git('add', '.');
    await work.git('commit', '-q', '-m', 'Gadgets');
    await work.git('push', '-q', withToken(url('/maker/gadgets.git'), 'maker', makerToken), 'main');
    await kiln.app.services.repos.fork(helper, 'maker', 'gadgets', {});
    await work.git('checkout', '-q', '-b', 'oil');
    work.write('gadget.txt', 'cog\nwheel\noil can\n');
    await work.git('commit', '-q', '-am', 'Oil the wheel');
    await work.git(
      'push',
      '-q',
      withToken(url('/helper/gadgets.git'), 'helper', helperToken),
      'oil',
    );

    await page.goto(url('/login'));
    await page.getByLabel('Username or email').fill('helper');
    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.goto(url('/repos/maker/gadgets/compare'));
    await page.getByLabel('Head repository').selectOption('helper/gadgets');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByLabel('Compare', { exact: true }).selectOption('oil');
    await page.getByRole('button', { name: 'Compare' }).click();
    expect(new URL(page.url()).pathname).toBe(
      '/repos/maker/gadgets/compare/main...helper/gadgets:oil',
    );
    expect(await page.textContent('main')).toContain('Oil the wheel');
    expect(await page.getByLabel('Title').inputValue()).toBe('Oil the wheel');
    await page.getByLabel('Description').fill('From my fork.');
    await screenshot(page, 'compare-fork');
    await page.getByRole('button', { name: 'Create pull request' }).click();

    expect(new URL(page.url()).pathname).toBe('/repos/maker/gadgets/pulls/1');
    expect(await page.textContent('main')).toContain('helper:oil');
    // The mergeability is filled in by the page's script, or was known when it was drawn.
    await page.getByText('no conflicts with the base branch').waitFor();
    expect(problems).toEqual([]);
  });
});
