/**
 * A merged pull request's page names who merged it, as the API's `merged_by` does: bob opens
 * the pull, alice merges it, and every tab's header reads "alice merged", never "bob merged".
 */
import { describe, expect, it } from 'vitest';
import { branchesFromRoot } from '../support/branches.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let alice: Person;
let bob: Person;
useWorld({ people: ['alice', 'bob'] }, (world) => {
  kiln = world.kiln;
  ({ alice, bob } = world.people);
});

describe('a merged pull request page', () => {
  it('names the person who merged it, not its author', async () => {
    const { services } = kiln.app;
    const repo = await makeRepo(kiln, alice.user, 'shop');
    await services.collaborators.put(
      alice.user,
      alice.user.handle,
      'shop',
      bob.user.handle,
      'write',
    );
    await branchesFromRoot(
      kiln,
      repo,
      { files: { 'a.txt': 'a\n' } },
      { topic: { files: { 'b.txt': 'b\n' } } },
    );
    const { pull } = await services.pulls.create(bob.user, alice.user.handle, 'shop', {
      title: 'add b',
      head: 'topic',
      base: 'main',
    });
    await services.pullMerges.merge(alice.user, alice.user.handle, 'shop', pull.number);
    const api = await apiCall(kiln.url, `/repos/${alice.user.handle}/shop/pulls/${pull.number}`, {
      token: bob.token,
    });
    expect((api.body as { merged_by: { login: string } }).merged_by.login).toBe(alice.user.handle);
    const browser = await signedIn(kiln, bob.user.handle, bob.password);
    const base = `/repos/${alice.user.handle}/shop/pulls/${pull.number}`;
    for (const tab of ['', '/commits', '/files']) {
      const html = await page(browser, `${base}${tab}`);
      const header = html.slice(
        html.indexOf('State--merged'),
        html.indexOf('aria-label="Pull request"'),
      );
      expect(header, tab).toMatch(new RegExp(`>${alice.user.handle}</a>\\s*merged into`));
      expect(header, tab).not.toContain(`>${bob.user.handle}</a>`);
    }
  });
});
