/**
 * Reviews in a real Chromium: a writer comments on a line as the start of a review and submits
 * it requesting changes; the conversation shows the review with its verdict and thread, and
 * what blocks the merge one line each; the repository admin dismisses it; the writer approves
 * through "Review changes"; the blockers are gone and the merge lands in the timeline.
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

const PASSWORD = 'a long enough secret';

describe.runIf(browserEnabled)('reviews in a browser', () => {
  it('requests changes, dismisses, approves and merges with the timeline', async () => {
    const { page, problems } = chrome;
    const url = (path: string) => kiln.url + path;
    const { user: lead } = await kiln.make.user({ handle: 'lead', password: PASSWORD });
    const { user: mate } = await kiln.make.user({ handle: 'mate', password: PASSWORD });
    const token = await kiln.make.token(lead);
    await kiln.app.services.repos.create(lead, { name: 'gadgets' });
    const api = (path: string, method: string, body: unknown) =>
      fetch(url(`/api/v1/repos/lead/gadgets${path}`), {
        method,
        headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(
      (await api(`/collaborators/${mate.handle}`, 'PUT', { permission: 'write' })).status,
    ).toBe(204);
    const rule = { rule_name: 'main', required_approvals: 1, block_on_rejected_reviews: true };
    expect((await api('/branch_protections', 'POST', rule)).status).toBe(201);

    const remote = withToken(url('/lead/gadgets.git'), 'lead', token);
    work.write('gadget.txt', 'cog\nwheel\naxle\n');
    await work.git('init', '-q', '-b', 'main');
    await work.git('add', '.');
    await work.git('commit', '-q', '-m', 'Gadgets');
    await work.git('push', '-q', remote, 'main');
    await work.git('checkout', '-q', '-b', 'tune');
    work.write('gadget.txt', 'cog\nWHEEL\naxle\n');
    await work.git('commit', '-q', '-am', 'Tune the wheel');
    await work.git('push', '-q', remote, 'tune');
    await kiln.app.services.pulls.create(lead, 'lead', 'gadgets', {
      title: 'Tune the wheel',
      head: 'tune',
      base: 'main',
    });
    const pullPath = '/repos/lead/gadgets/pulls/1';

    const signIn = (handle: string) => signInAs(chrome, kiln.url, handle, PASSWORD);

    await signIn('mate');
    await page.goto(url(`${pullPath}/files`));
    await page.getByRole('link', { name: 'Comment on line 2' }).click();
    await page.getByLabel(/Comment on gadget\.txt line 2/).fill('Why capitals?');
    await page.getByRole('button', { name: 'Start a review' }).click();
    await expect.poll(() => page.textContent('#review-changes summary')).toContain('1 pending');
    await page.getByLabel('Review summary').fill('Please keep it **lower case**.');
    await page.getByLabel('Request changes').check();
    await screenshot(page, 'review-changes-form');
    await page.getByRole('button', { name: 'Submit review' }).click();
    await expect.poll(() => page.textContent('main')).toContain('Review submitted.');
    const review = page.locator('.kiln-review').first();
    expect(await review.getAttribute('data-review-state')).toBe('REQUEST_CHANGES');
    expect(await review.textContent()).toContain('requested changes');
    expect(await review.locator('.markdown-body strong').textContent()).toBe('lower case');
    expect(await review.textContent()).toContain('Why capitals?');
    const blockers = () => page.locator('#merge-blockers li').allTextContents();
    expect(await blockers()).toEqual(['Approvals: 0 of 1', 'Changes requested by mate']);
    expect(await page.getByRole('button', { name: 'Merge pull request' }).isDisabled()).toBe(true);
    // A writer gets no override and no dismissal.
    expect(await page.locator('[data-dismiss-review]').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Merge without waiting/ }).count()).toBe(0);
    await screenshot(page, 'review-requested-changes');

    await signIn('lead');
    await page.goto(url(pullPath));
    expect(await page.getByRole('button', { name: /Merge without waiting/ }).count()).toBe(1);
    await page.locator('[data-dismiss-review]').click();
    await expect.poll(() => page.textContent('main')).toContain('Review dismissed.');
    expect(await page.locator('.kiln-review [data-dismissed]').count()).toBe(1);
    expect(await blockers()).toEqual(['Approvals: 0 of 1']);

    await signIn('mate');
    await page.goto(url(`${pullPath}/files`));
    await page.locator('#review-changes summary').click();
    await page.getByLabel('Review summary').fill('Fine as it is.');
    await page.getByLabel('Approve').check();
    await page.getByRole('button', { name: 'Submit review' }).click();
    await expect.poll(() => page.textContent('main')).toContain('Review submitted.');
    expect(await page.locator('#merge-blockers').count()).toBe(0);
    expect(await page.locator('.kiln-review[data-review-state="APPROVED"]').count()).toBe(1);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Merge pull request' }).click();
    await expect.poll(() => page.textContent('main')).toContain('Pull request merged.');
    await kiln.app.services.pullMerges.settle();
    await page.reload();
    const merged = page.locator('[data-timeline-event="merged"]');
    expect(await merged.textContent()).toContain('mate merged this pull request');
    await screenshot(page, 'review-timeline');
    expect(problems).toEqual([]);
  });
});
