/**
 * A pull request's life in a real Chromium: push a branch with the git CLI, open the pull from
 * the web form, comment on a line of its diff, reply to the thread and resolve it, merge it
 * through the confirmation dialog, find the merge commit in the history, then search
 * anonymously. Then a repository deleted through its confirmation page. Pages must raise no
 * console error or CSP violation.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import { type Chromium, screenshot } from './chromium.ts';
import { type WorkTree, withToken } from './git-cli.ts';
import { browserEnabled, signInAs, useBrowserWorld } from './suite.ts';

let kiln: TestServer;
let chrome: Chromium;
let work: WorkTree;

useBrowserWorld((world) => {
  ({ kiln, chrome, work } = world);
});

describe.runIf(browserEnabled)('pull requests in a browser', () => {
  it('opens, reviews and merges a pull, then finds it anonymously', async () => {
    const { page, problems } = chrome;
    const url = (path: string) => kiln.url + path;
    const { user } = await kiln.make.user({ handle: 'reviewer', password: 'a long enough secret' });
    const token = await kiln.make.token(user);
    await kiln.app.services.repos.create(user, { name: 'widgets', description: 'Widget factory' });
    const remote = withToken(url('/reviewer/widgets.git'), 'reviewer', token);

    work.write('widget.txt', 'gear\nspring\nlever\n');
    await work.git('init', '-q', '-b', 'main');
    await work.git('add', '.');
    await work.git('commit', '-q', '-m', 'Widgets');
    await work.git('push', '-q', remote, 'main');
    await work.git('checkout', '-q', '-b', 'polish');
    work.write('widget.txt', 'gear\nSPRING\nlever\nbolt\n');
    await work.git('commit', '-q', '-am', 'Polish the spring');
    await work.git('push', '-q', remote, 'polish');

    await signInAs(chrome, kiln.url, 'reviewer', 'a long enough secret');

    await page.goto(url('/repos/reviewer/widgets/pulls'));
    await page.getByRole('link', { name: 'New pull request' }).click();
    await page.getByLabel('Compare').fill('polish');
    await page.getByLabel('Title').fill('Polish the spring');
    await page
      .getByLabel('Description')
      .fill(
        'Makes the **spring** stand out.\n\n- gear\n- lever\n\n| part | size |\n|---|---|\n| bolt | M4 |\n\n<details><summary>Why</summary>\n\nIt was hard to see.\n\n</details>',
      );
    await screenshot(page, 'pull-new');
    await page.getByRole('button', { name: 'Create pull request' }).click();
    expect(new URL(page.url()).pathname).toBe('/repos/reviewer/widgets/pulls/1');
    expect(await page.textContent('main')).toContain('Polish the spring');
    expect(await page.locator('.markdown-body strong').textContent()).toBe('spring');
    // README styles: bullets drawn inside the box, bordered cells, a working <details>.
    const layout = await page.evaluate(() => {
      const box = document.querySelector('.Box-body.markdown-body')?.getBoundingClientRect();
      const item = document.querySelector('.markdown-body li')?.getBoundingClientRect();
      const list = document.querySelector('.markdown-body ul');
      const cell = document.querySelector('.markdown-body td');
      return {
        indent: (item?.left ?? 0) - (box?.left ?? 0),
        marker: list ? getComputedStyle(list).listStyleType : '',
        border: cell ? getComputedStyle(cell).borderTopWidth : '',
      };
    });
    expect(layout.marker).toBe('disc');
    expect(layout.indent).toBeGreaterThanOrEqual(24);
    expect(layout.border).toBe('1px');
    await expect.poll(() => page.locator('.markdown-body details').isVisible()).toBe(true);
    expect(await page.getByText('It was hard to see.').isVisible()).toBe(false);
    await page.locator('.markdown-body summary').click();
    expect(await page.getByText('It was hard to see.').isVisible()).toBe(true);
    await screenshot(page, 'pull-conversation');

    await page.getByRole('link', { name: /Files changed/ }).click();
    await page.getByRole('link', { name: 'Comment on line 2' }).click();
    await page.getByLabel(/Comment on widget\.txt line 2/).fill('Why shout?');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await expect.poll(() => page.textContent('main')).toContain('Why shout?');
    await screenshot(page, 'pull-files');

    // Reply under the thread, then resolve it: it folds, saying who resolved it.
    await page.getByRole('textbox', { name: /Reply to thread/ }).fill('To make it **stand out**.');
    await page.getByRole('button', { name: 'Reply' }).click();
    const thread = page.locator('.kiln-thread');
    await expect.poll(() => thread.textContent()).toContain('To make it stand out.');
    expect(await thread.locator('.kiln-comment').count()).toBe(2);
    await page.getByRole('button', { name: 'Resolve conversation' }).click();
    await expect.poll(() => page.locator('details.kiln-thread').count()).toBe(1);
    const summary = page.locator('details.kiln-thread > summary');
    expect(await summary.textContent()).toContain('resolved by reviewer');
    const first = page.locator('.kiln-thread .kiln-comment-body').first();
    expect(await first.isVisible()).toBe(false);
    await summary.click();
    expect(await first.textContent()).toContain('Why shout?');
    expect(await first.isVisible()).toBe(true);
    await screenshot(page, 'pull-thread-resolved');

    await page.getByRole('link', { name: 'Conversation' }).click();
    expect(await page.locator('details.kiln-thread').count()).toBe(1);
    // Merging asks first; the dialog's answer is what the server is told.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Merge pull request' }).click();
    await expect.poll(() => page.textContent('main')).toContain('Pull request merged.');
    expect(asked).toEqual(['Merge this pull request?']);
    expect(await page.locator('.State--merged').count()).toBeGreaterThan(0);
    await screenshot(page, 'pull-merged');

    await page.goto(url('/repos/reviewer/widgets/commits/main'));
    expect(await page.textContent('main')).toContain("Merge pull request 'Polish the spring' (#1)");
    await screenshot(page, 'history-after-merge');
    expect(problems).toEqual([]);

    await chrome.context.clearCookies();
    await page.goto(url('/search?q=widg'));
    const results = await page.textContent('main');
    expect(results).toContain('widgets');
    expect(results).toContain('Widget factory');
    await screenshot(page, 'search-anonymous');
  });

  it('deletes a repository only once its name is typed on the confirmation page', async () => {
    const { page, problems } = chrome;
    const url = (path: string) => kiln.url + path;
    const { user } = await kiln.make.user({ handle: 'tidy', password: 'a long enough secret' });
    await kiln.app.services.repos.create(user, { name: 'scratch', description: 'Temporary' });

    await signInAs(chrome, kiln.url, 'tidy', 'a long enough secret');

    await page.goto(url('/repos/tidy/scratch/settings'));
    await page.getByRole('button', { name: 'Delete tidy/scratch' }).click();
    expect(new URL(page.url()).pathname).toBe('/repos/tidy/scratch/settings/delete');
    expect(await page.textContent('main')).toContain('Delete tidy/scratch?');
    await screenshot(page, 'repo-delete-confirm');
    await page.getByLabel('Type tidy/scratch to confirm').fill('scratch');
    await page.getByRole('button', { name: 'Delete this repository' }).click();
    await expect
      .poll(() => page.textContent('main'))
      .toContain('Type tidy/scratch to confirm the deletion.');
    expect((await fetch(url('/repos/tidy/scratch'))).status).toBe(200);

    await page.getByLabel('Type tidy/scratch to confirm').fill('tidy/scratch');
    await page.getByRole('button', { name: 'Delete this repository' }).click();
    await expect.poll(() => page.textContent('main')).toContain('tidy/scratch was deleted.');
    expect(new URL(page.url()).pathname).toBe('/tidy');
    const gone = await page.goto(url('/repos/tidy/scratch'));
    expect(gone?.status()).toBe(404);
    // The refused name (422) and the deleted repository (404) are answers the test asked for.
    const expected = /status of (404|422)/;
    expect(problems.filter((problem) => !expected.test(problem))).toEqual([]);
  });
});
