/**
 * Mergeability of open pulls, from a real conflict made with git: the pull page never waits for
 * the check (it says it is checking and links a reload, its script asks the JSON answer), then
 * lists the conflicting files and disables the merge button; merging is refused with a clear
 * message, and a push that resolves the conflict is seen. The REST `mergeable` field stays the
 * specification's placeholder (true while open), conflict or not.
 */
import { describe, expect, it } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { commitTo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: User;
let password: string;
let token: string;
let repo: Repository;
let base: string;
let root: string;

useWorld({ people: ['owner'], repos: [{ owner: 'owner', name: 'merges' }] }, async (world) => {
  kiln = world.kiln;
  ({ user: owner, password, token } = world.people.owner);
  repo = world.repos.merges;
  base = `/repos/${owner.handle}/merges`;
  root = await commitTo(kiln, repo, { branch: 'main', files: { 'app.txt': 'one\ntwo\n' } });
  await commitTo(kiln, repo, {
    branch: 'main',
    files: { 'app.txt': 'one\nTWO on main\n' },
    message: 'Main changes two',
  });
});

async function openPull(branch: string, files: Record<string, string>): Promise<number> {
  await commitTo(kiln, repo, { branch, parents: [root], files, message: `Change on ${branch}` });
  const { pull } = await kiln.app.services.pulls.create(owner, owner.handle, 'merges', {
    title: branch,
    head: branch,
    base: 'main',
  });
  return pull.number;
}

async function mergeabilityOf(number: number) {
  const response = await fetch(`${kiln.url}${base}/pulls/${number}/mergeability`);
  expect(response.status).toBe(200);
  return response.json();
}

describe('mergeability of a pull', () => {
  it('checks in the background, then lists the conflicts and disables merging', async () => {
    const number = await openPull('clash', { 'app.txt': 'one\ntwo on clash\n' });
    const browser = await signedIn(kiln, owner.handle, password);
    const first = await page(browser, `${base}/pulls/${number}`);
    expect(first).toContain('Checking whether this can be merged');
    expect(first).toContain(`data-mergeability="${base}/pulls/${number}/mergeability"`);
    expect(await mergeabilityOf(number)).toEqual({ state: 'conflict', files: ['app.txt'] });
    const later = await page(browser, `${base}/pulls/${number}`);
    expect(later).toContain('This branch has conflicts that must be resolved');
    expect(later).toContain('<code>app.txt</code>');
    expect(later).toMatch(/<button[^>]*data-merge-button[^>]*disabled/);

    const api = await apiCall(kiln.url, `/repos/${owner.handle}/merges/pulls/${number}`, {
      token,
    });
    expect(api.body.mergeable).toBe(true);

    const refused = await browser.post(`${base}/pulls/${number}/merge`, { confirm: 'yes' });
    expect(refused.status).toBe(303);
    const shown = await page(browser, `${base}/pulls/${number}`);
    expect(shown).toContain('This pull request cannot be merged');
    const viaApi = await apiCall(kiln.url, `/repos/${owner.handle}/merges/pulls/${number}/merge`, {
      token,
      method: 'POST',
      body: { Do: 'merge' },
    });
    expect(viaApi.status).toBe(409);
  });

  it('answers clean for a head that merges, in the page, the JSON and the API', async () => {
    const number = await openPull('fine', { 'app.txt': 'one\ntwo\n', 'other.txt': 'x\n' });
    const api = await apiCall(kiln.url, `/repos/${owner.handle}/merges/pulls/${number}`, {
      token,
    });
    expect(api.body.mergeable).toBe(true);
    expect(await mergeabilityOf(number)).toEqual({ state: 'clean' });
    const browser = await signedIn(kiln, owner.handle, password);
    const shown = await page(browser, `${base}/pulls/${number}`);
    expect(shown).toContain('no conflicts with the base branch');
    expect(shown).not.toMatch(/<button[^>]*data-merge-button[^>]*disabled/);
  });

  it('sees a push that resolves the conflict', async () => {
    const number = await openPull('fixed', { 'app.txt': 'one\ntwo on fixed\n' });
    expect((await mergeabilityOf(number)).state).toBe('conflict');
    const mainTip = await kiln.app.services.pulls.branchTip(repo, 'main');
    const resolved = await commitTo(kiln, repo, {
      branch: 'fixed',
      parents: [mainTip ?? ''],
      files: { 'app.txt': 'one\nTWO on main, fixed\n' },
      message: 'Merge main and resolve',
    });
    // What a push of the branch brings about (commitTo writes without one).
    await kiln.app.services.pulls.onBranchPushed(repo, 'fixed', resolved, owner);
    expect(await mergeabilityOf(number)).toEqual({ state: 'clean' });
    const api = await apiCall(kiln.url, `/repos/${owner.handle}/merges/pulls/${number}`, {
      token,
    });
    expect(api.body.mergeable).toBe(true);
  });
});
