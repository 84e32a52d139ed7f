/**
 * The conversation tab's timeline on the page itself: reviews with their verdicts and events
 * with who did them, a pending review shown to its author alone, and a long timeline cut to its
 * first and latest items with a link that shows all of them.
 */
import { describe, expect, it } from 'vitest';
import { branchesFromRoot } from '../support/branches.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: Person;
let reviewer: Person;
let url: string;

useWorld(
  { people: ['owner', 'reviewer'], repos: [{ owner: 'owner', name: 'timeline' }] },
  async (world) => {
    kiln = world.kiln;
    ({ owner, reviewer } = world.people);
    await branchesFromRoot(
      kiln,
      world.repos.timeline,
      { files: { 'app.txt': 'one\ntwo\n' } },
      { feature: { files: { 'app.txt': 'one\nTWO\n' }, message: 'Shout' } },
    );
    await kiln.app.services.pulls.create(owner.user, owner.user.handle, 'timeline', {
      title: 'Shout',
      head: 'feature',
      base: 'main',
    });
    url = `/repos/${owner.user.handle}/timeline/pulls/1`;
  },
);

const review = (body: string, event?: 'COMMENT' | 'APPROVED') =>
  kiln.app.services.pullReviews.create(reviewer.user, owner.user.handle, 'timeline', 1, {
    body,
    ...(event ? { event } : {}),
  });

describe('the pull timeline', () => {
  it('shows verdicts, keeps a pending review to its author, and cuts a long timeline', async () => {
    await review('Looks **right**', 'APPROVED');
    await review('still thinking');
    const anonymous = await page(new Browser(kiln.url), url);
    expect(anonymous).toContain('approved these changes');
    expect(anonymous).toContain('<strong>right</strong>');
    expect(anonymous).not.toContain('still thinking');
    const asReviewer = await signedIn(kiln, reviewer.user.handle, reviewer.password);
    expect(await page(asReviewer, `${url}/files`)).toContain('Review changes');

    // The pending one is submitted here; 24 more make the timeline longer than it shows.
    expect((await review('', 'COMMENT')).review.body).toBe('still thinking');
    for (let i = 0; i < 24; i++) await review(`note ${i}`, 'COMMENT');
    const cut = await page(new Browser(kiln.url), url);
    expect(cut).toContain('items between the first and the latest are not shown');
    expect(cut).toContain('Looks <strong>right</strong>');
    expect(cut).toContain('note 23');
    expect(cut).not.toContain('>note 4<');
    const all = await page(new Browser(kiln.url), `${url}?timeline=all`);
    expect(all).toContain('>note 4<');
    expect(all).not.toContain('are not shown');
  });
});
