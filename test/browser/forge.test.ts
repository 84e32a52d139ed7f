/**
 * Kiln in a real Chromium: sign up, create a repository, push to it with the git CLI and a
 * token, browse the tree and a file, open the history and a commit, then revoke the token; and
 * the same pages with JavaScript off. Screenshots of each page land in screenshots/ (ignored by
 * git) for people to look at. Pages must raise no console error or CSP violation.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import { type Chromium, launchChromium, screenshot } from './chromium.ts';
import { type WorkTree, withToken } from './git-cli.ts';
import { browserEnabled, useBrowserWorld } from './suite.ts';

let kiln: TestServer;
let chrome: Chromium;
let work: WorkTree;

useBrowserWorld((world) => {
  ({ kiln, chrome, work } = world);
});

describe.runIf(browserEnabled)('the forge in a browser', () => {
  it('signs up, creates a repository, pushes, browses, and manages a token', async () => {
    const { page, problems } = chrome;
    const url = (path: string) => kiln.url + path;

    await page.goto(url('/'));
    await screenshot(page, 'home-signed-out');
    await page.getByRole('link', { name: 'Sign up' }).first().click();
    await page.getByLabel('Username').fill('browsy');
    await page.getByLabel('Email').fill('browsy@example.test');
    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect.poll(() => page.textContent('main')).toContain('Welcome to Kiln, browsy!');

    await page.getByRole('link', { name: 'New repository' }).first().click();
    expect(new URL(page.url()).pathname).toBe('/new');
    await screenshot(page, 'new-repository');
    await page.getByLabel('Repository name').fill('demo');
    await page.getByLabel('Description').fill('A demonstration of <markup>');
    await page.getByRole('button', { name: 'Create repository' }).click();
    expect(new URL(page.url()).pathname).toBe('/repos/browsy/demo');
    await expect.poll(() => page.textContent('main')).toContain('This repository is empty.');
    expect(await page.textContent('main')).toContain('A demonstration of <markup>');
    const cloneUrl = await page.inputValue('#clone-url');
    expect(cloneUrl).toBe(url('/browsy/demo.git'));
    await screenshot(page, 'repository-empty');

    await page.goto(url('/settings/tokens'));
    await page.getByLabel('Token name').fill('laptop');
    await page.getByRole('checkbox', { name: 'read:repository' }).check();
    await page.getByRole('checkbox', { name: 'write:repository' }).check();
    await page.getByLabel('Expiry').selectOption('30');
    await page.getByRole('button', { name: 'Generate token' }).click();
    const token = (await page.textContent('#new-token'))?.trim() ?? '';
    expect(token).toMatch(/^[0-9a-f]{40}$/);
    await screenshot(page, 'tokens');

    work.write(
      'README.md',
      '# Demo\n\nPushed from the **git CLI**.\n\n```ts\nconst answer = 42;\n```\n',
    );
    work.write(
      'src/app.ts',
      'export function greet(name: string): string {\n  return "hi " + name;\n}\n',
    );
    work.write('docs/guide.md', '# Guide\n');
    await work.git('init', '-q', '-b', 'main');
    await work.git('add', '.');
    await work.git('commit', '-q', '-m', 'First commit');
    work.write(
      'src/app.ts',
      'export function greet(name: string): string {\n  return "hello " + name;\n}\n',
    );
    await work.git('commit', '-q', '-am', 'Second commit', '-m', 'Greets more politely.');
    await work.git('push', '-q', withToken(cloneUrl, 'browsy', token), 'main');

    await page.goto(url('/repos/browsy/demo'));
    await expect
      .poll(() => page.textContent('article.markdown-body'))
      .toContain('Pushed from the git CLI.');
    await screenshot(page, 'repository');

    await page.getByRole('link', { name: 'src', exact: true }).click();
    expect(new URL(page.url()).pathname).toBe('/repos/browsy/demo/src/main/src');
    await screenshot(page, 'tree');
    await page.getByRole('link', { name: 'app.ts' }).click();
    expect(new URL(page.url()).pathname).toBe('/repos/browsy/demo/src/main/src/app.ts');
    expect(await page.locator('.hljs-keyword').count()).toBeGreaterThan(0);
    await screenshot(page, 'file');

    await page.getByRole('link', { name: 'History' }).click();
    expect(new URL(page.url()).pathname).toBe('/repos/browsy/demo/commits/main/src/app.ts');
    expect(await page.textContent('main')).toContain('Second commit');
    await screenshot(page, 'history');
    await page.getByRole('link', { name: 'Second commit' }).click();
    expect(new URL(page.url()).pathname).toMatch(/^\/repos\/browsy\/demo\/commit\/[0-9a-f]{40}$/);
    expect(await page.textContent('main')).toContain('Greets more politely.');
    expect(await page.locator('tr.kiln-add').count()).toBe(1);
    expect(await page.locator('tr.kiln-del').count()).toBe(1);
    await screenshot(page, 'commit');

    // The copy button (the one script on the site) confirms a copy.
    await chrome.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: kiln.url,
    });
    await page.goto(url('/repos/browsy/demo'));
    await page.getByText('Code', { exact: true }).last().click();
    await screenshot(page, 'clone-menu');
    // The HTTPS field's button; the SSH field beside it has its own.
    const copy = page.locator(`.kiln-clone-menu button[data-copy="${cloneUrl}"]`);
    await copy.click();
    await expect.poll(() => copy.getAttribute('aria-label')).toBe('Copied!');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(cloneUrl);

    await page.goto(url('/settings/tokens'));
    await page.getByRole('button', { name: 'Revoke laptop' }).click();
    // A second step, a page of its own, so that revoking needs no JavaScript.
    await expect.poll(() => page.textContent('main')).toContain('Revoke token laptop?');
    await page.getByRole('button', { name: 'Revoke laptop' }).click();
    await expect.poll(() => page.textContent('main')).toContain('Token revoked.');
    expect(await page.textContent('main')).toContain('No tokens yet.');
    work.write('late.txt', 'after the token was revoked\n');
    await work.git('add', 'late.txt');
    await work.git('commit', '-q', '-m', 'Too late');
    await expect(
      work.git('push', '-q', withToken(cloneUrl, 'browsy', token), 'main'),
    ).rejects.toThrow();

    for (const [name, path] of [
      ['dashboard', '/'],
      ['profile', '/browsy'],
      ['explore', '/explore'],
      ['branches', '/repos/browsy/demo/branches'],
      ['repository-settings', '/repos/browsy/demo/settings'],
      ['settings', '/settings'],
    ] as const) {
      await page.goto(url(path));
      await screenshot(page, name);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url('/repos/browsy/demo'));
    await screenshot(page, 'repository-narrow');
    await page.goto(url('/repos/browsy/demo/commits/main'));
    await screenshot(page, 'history-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);

    // Chromium reports the 404 of the page itself as a failed load; that is the point here.
    await page.goto(url('/repos/browsy/missing'));
    expect(await page.textContent('main')).toContain('Page not found');
    await screenshot(page, 'not-found');
  });

  it('works with JavaScript off: sign in, switch branches, change settings', async () => {
    const plain = await launchChromium({ javaScript: false });
    try {
      const { page, problems } = plain;
      const { user } = await kiln.make.user({ handle: 'nojs', password: 'no scripts here' });
      const { repo } = await kiln.app.services.repos.create(user, {
        name: 'plain',
        autoInit: true,
      });
      await kiln.app.services.repos.fork(user, 'browsy', 'demo', {});
      await page.goto(`${kiln.url}/login`);
      await page.getByLabel('Username or email').fill('nojs');
      await page.getByLabel('Password').fill('no scripts here');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.goto(`${kiln.url}/repos/nojs/demo`);
      expect(await page.textContent('main')).toContain('forked from');
      await page.locator('.kiln-refs summary').click();
      await screenshot(page, 'branch-switcher');
      await page.locator('.kiln-refs').getByRole('menuitem', { name: 'main' }).click();
      expect(new URL(page.url()).pathname).toBe('/repos/nojs/demo/src/main');
      await page.goto(`${kiln.url}/repos/nojs/${repo.name}/settings`);
      await page.getByLabel('Description').fill('Saved without scripts');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect.poll(() => page.textContent('main')).toContain('Settings saved.');
      expect(problems).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
