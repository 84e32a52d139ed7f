/**
 * After a push the real git client shows, as `remote:` lines on its stderr, Gitea's hint: where
 * to open a pull for a new branch (from a fork: into the repository it was forked from), or the
 * pull already open for it; nothing for the default branch. The repository's page then offers
 * "Compare & pull request" to whoever pushed a branch in the last hour, until a pull carries it.
 */
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { page, signedIn } from '../web/fixtures.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let ownerToken: string;
let ownerPassword: string;
let forker: User;
let forkerToken: string;
let forkerPassword: string;

useWorld(
  {
    people: ['owner', 'forker'],
    repos: [{ owner: 'owner', name: 'hints', autoInit: true }],
  },
  (world) => {
    ({ kiln, git } = world);
    ({ user: owner, token: ownerToken, password: ownerPassword } = world.people.owner);
    ({ user: forker, token: forkerToken, password: forkerPassword } = world.people.forker);
  },
);

/** A clone of `owner/name`, one commit on `branch` and its push; what git printed to stderr. */
async function pushNew(
  who: { handle: string; token: string },
  repoOwner: string,
  name: string,
  branch: string,
): Promise<string> {
  const url = repoUrl(kiln.url, repoOwner, name, { token: who.token, as: 'password' });
  const dir = await git.tempDir('hints-');
  await git.ok(['clone', '-q', url, dir]);
  // The branch as the server has it when it exists there, else a new one from the default.
  const existing = await git.run(['checkout', '-q', branch], { cwd: dir });
  if (existing.code !== 0) await git.ok(['checkout', '-q', '-b', branch], { cwd: dir });
  await git.commit(dir, { [`${branch}.txt`]: `${branch}\n` }, `Work on ${branch}`);
  const pushed = await git.run(['push', url, `HEAD:refs/heads/${branch}`], { cwd: dir });
  expect(pushed.code).toBe(0);
  return pushed.stderr;
}

describe('pull hints after a push', () => {
  it('prints where to open a pull for a new branch, and nothing for the default branch', async () => {
    const who = { handle: owner.handle, token: ownerToken };
    const stderr = await pushNew(who, owner.handle, 'hints', 'topic');
    expect(stderr).toContain("remote: Create a new pull request for 'topic':");
    expect(stderr).toContain(
      `remote:   ${kiln.url}/repos/${owner.handle}/hints/compare/main...topic`,
    );
    const onMain = await pushNew(who, owner.handle, 'hints', 'main');
    expect(onMain).not.toContain('pull request');
  });

  it('points at the open pull when the pushed branch has one', async () => {
    const who = { handle: owner.handle, token: ownerToken };
    await pushNew(who, owner.handle, 'hints', 'reviewed');
    const { pull } = await kiln.app.services.pulls.create(owner, owner.handle, 'hints', {
      title: 'Reviewed',
      head: 'reviewed',
      base: 'main',
    });
    const stderr = await pushNew(who, owner.handle, 'hints', 'reviewed');
    expect(stderr).toContain('remote: Visit the existing pull request:');
    expect(stderr).toContain(
      `remote:   ${kiln.url}/repos/${owner.handle}/hints/pulls/${pull.number}`,
    );
    expect(stderr).not.toContain('Create a new pull request');
  });

  it('sends a fork’s new branch to the repository it was forked from', async () => {
    await kiln.app.services.repos.fork(forker, owner.handle, 'hints', {});
    const who = { handle: forker.handle, token: forkerToken };
    const stderr = await pushNew(who, forker.handle, 'hints', 'forked');
    expect(stderr).toContain(`remote: Create a new pull request for '${forker.handle}:forked':`);
    const url = `${kiln.url}/repos/${owner.handle}/hints/compare/main...${forker.handle}/hints:forked`;
    expect(stderr).toContain(`remote:   ${url}`);
    // The address leads to the compare page of that head.
    const browser = await signedIn(kiln, owner.handle, ownerPassword);
    expect(await page(browser, url.slice(kiln.url.length))).toContain('Work on forked');
  });

  it('offers Compare & pull request on the repository page to the pusher, until a pull exists', async () => {
    const who = { handle: owner.handle, token: ownerToken };
    await pushNew(who, owner.handle, 'hints', 'offered');
    const browser = await signedIn(kiln, owner.handle, ownerPassword);
    const home = `/repos/${owner.handle}/hints`;
    const offer = `href="${home}/compare/main...offered"`;
    expect(await eventually(async () => (await page(browser, home)).includes(offer))).toBe(true);
    expect(await page(browser, home)).toContain('Compare &amp; pull request');
    // Someone else did not push it and is offered nothing.
    const other = await signedIn(kiln, forker.handle, forkerPassword);
    expect(await page(other, home)).not.toContain(offer);
    await kiln.app.services.pulls.create(owner, owner.handle, 'hints', {
      title: 'Offered',
      head: 'offered',
      base: 'main',
    });
    expect(await page(browser, home)).not.toContain(offer);
  });
});
