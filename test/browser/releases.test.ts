/**
 * Releases and tags in a real Chromium: sign in, draft a release with a new tag from a branch
 * (previewing its notes first), land on the page the REST API names as its `html_url`, download
 * its zip, edit it and delete it; then create and delete a tag. Screenshots at 1280 and 390 px
 * land in screenshots/. Pages must raise no console error or CSP violation.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { commitTo } from '../web/fixtures.ts';
import { type Chromium, screenshot } from './chromium.ts';
import { browserEnabled, useBrowserWorld } from './suite.ts';

let kiln: TestServer;
let chrome: Chromium;

useBrowserWorld(async (world) => {
  ({ kiln, chrome } = world);
  const { user } = await kiln.make.user({ handle: 'relly', password: 'ships releases' });
  const { repo } = await kiln.app.services.repos.create(user, { name: 'rocket' });
  await commitTo(kiln, repo, { branch: 'main', files: { 'README.md': '# Rocket\n' } });
  await commitTo(kiln, repo, { branch: 'stable', files: { 'STABLE.md': 'stable\n' } });
});

describe.runIf(browserEnabled)('releases in a browser', () => {
  it('drafts, shows, downloads, edits and deletes a release; creates and deletes a tag', async () => {
    const { page, problems } = chrome;
    const url = (path: string) => kiln.url + path;
    const main = () => page.textContent('main');

    await page.goto(url('/login'));
    await page.getByLabel('Username or email').fill('relly');
    await page.getByLabel('Password').fill('ships releases');
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.goto(url('/repos/relly/rocket/releases'));
    await page.getByRole('link', { name: 'Draft a new release' }).click();
    expect(new URL(page.url()).pathname).toBe('/repos/relly/rocket/releases/new');
    await page.getByLabel('Tag', { exact: true }).fill('v1.0/rc-1');
    await page.getByLabel('Target branch').selectOption('stable');
    await page.getByLabel('Title').fill('First flight');
    await page.getByLabel('Release notes').fill('## Highlights\n\n- **Lift-off**\n');
    await page.getByLabel('This is a pre-release').check();
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="release-preview"] strong').textContent())
      .toBe('Lift-off');
    expect(await page.getByLabel('Target branch').inputValue()).toBe('stable');
    await screenshot(page, 'release-new-preview');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'release-new-preview-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Publish release' }).click();

    await expect.poll(main).toContain('Release v1.0/rc-1 published.');
    const api = await apiCall(kiln.url, '/repos/relly/rocket/releases/tags/v1.0/rc-1');
    expect(api.status).toBe(200);
    expect(page.url()).toBe(api.body.html_url);
    expect(api.body).toMatchObject({ name: 'First flight', prerelease: true });
    expect(await main()).toContain('Pre-release');
    expect(await page.locator('.markdown-body strong').textContent()).toBe('Lift-off');
    await screenshot(page, 'release');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'release-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Source code (zip)' }).click(),
    ]);
    const zip = readFileSync((await download.path()) as string);
    expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(zip.includes(Buffer.from('STABLE.md'))).toBe(true);

    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Title').fill('First flight, again');
    await page.getByLabel('This is a pre-release').uncheck();
    await screenshot(page, 'release-edit');
    await page.getByRole('button', { name: 'Update release' }).click();
    await expect.poll(main).toContain('Release v1.0/rc-1 updated.');
    expect(await main()).toContain('First flight, again');
    expect(await main()).not.toContain('Pre-release');

    await page.getByLabel('Delete this release').click();
    await screenshot(page, 'release-delete-confirm');
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(main).toContain('Release v1.0/rc-1 deleted');
    expect(new URL(page.url()).pathname).toBe('/repos/relly/rocket/releases');
    expect(await main()).toContain('There are no releases yet.');

    await page.getByRole('link', { name: 'Tags', exact: true }).click();
    expect(await main()).toContain('v1.0/rc-1');
    await page.getByLabel('Tag name').fill('nightly');
    await page.getByLabel('Target (branch or commit)').fill('main');
    await page.getByRole('button', { name: 'Create tag' }).click();
    await expect.poll(main).toContain('Tag nightly created.');
    await screenshot(page, 'tags');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'tags-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel('Delete tag nightly').click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(main).toContain('Tag nightly deleted.');
    expect(await page.locator('.branch-name', { hasText: 'nightly' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
