/**
 * Protection rules that need reviews: a glob rule over the base branch holds a merge, through
 * the API, with Gitea's 405 reason for each blocker in turn (approvals, a request for changes,
 * an out-of-date head) and lets it through once each is lifted; a repository admin's
 * `force_merge` goes past them and the pull records it; a merge whitelist keeps others out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { checkGiteaResponse } from '../api/gitea-swagger.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type PullWorld, pullWorld } from './support.ts';

let kiln: TestServer;
let git: GitClient;
let world: PullWorld;
let alice: { user: User; token: string };
let carol: { user: User; token: string };
let repo: string;

const refusal = (reason: string) => `not allowed to merge [reason: ${reason}]`;

async function call(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const answer = await world.api(path, init);
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  checkGiteaResponse(method, path, answer.status, answer.body);
  return answer;
}

const merge = (number: number, token = world.token, body: object = { Do: 'merge' }) =>
  world.api(`${repo}/pulls/${number}/merge`, { body, token });
const review = (number: number, token: string, event: string, body = 'reasoned') =>
  call(`${repo}/pulls/${number}/reviews`, { token, body: { event, body } });

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  world = await pullWorld(kiln, git);
  repo = `/repos/${world.owner.handle}/${world.name}`;
  alice = await kiln.make.userWithToken();
  carol = await kiln.make.userWithToken();
  for (const person of [alice, carol]) {
    await world.api(`${repo}/collaborators/${person.user.handle}`, {
      method: 'PUT',
      body: { permission: 'write' },
    });
  }
  await world.pushBranch('main', { 'a.txt': 'a\n' });
});
afterAll(async () => {
  await kiln?.close();
  await git?.dispose();
});

describe('protection rules with reviews', () => {
  it('stores every Gitea field of a glob rule', async () => {
    const created = await call(`${repo}/branch_protections`, {
      body: {
        rule_name: 'ma*',
        required_approvals: 1,
        block_on_rejected_reviews: true,
        block_on_outdated_branch: true,
        approvals_whitelist_username: [],
        merge_whitelist_usernames: [alice.user.handle],
        merge_whitelist_teams: ['reviewers'],
        push_whitelist_teams: ['pushers'],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      rule_name: 'ma*',
      required_approvals: 1,
      block_on_rejected_reviews: true,
      block_on_outdated_branch: true,
      enable_merge_whitelist: false,
      merge_whitelist_usernames: [alice.user.handle],
      // A person's repository has no teams: Gitea keeps none for its rules.
      merge_whitelist_teams: [],
      push_whitelist_teams: [],
    });
    const unknown = await call(`${repo}/branch_protections/ma*`, {
      method: 'PATCH',
      body: { approvals_whitelist_username: ['nobody-at-all'] },
    });
    expect(unknown.status).toBe(422);
    const negative = await call(`${repo}/branch_protections/ma*`, {
      method: 'PATCH',
      body: { required_approvals: -1 },
    });
    expect(negative.status).toBe(422);
    const branch = await call(`${repo}/branches/main`);
    expect(branch.body.protected).toBe(true);
  });

  it('holds the merge for each blocker and lets it through once all are lifted', async () => {
    await world.pushBranch('feature', { 'b.txt': 'b\n' });
    const pull = await world.openPull('feature');
    const first = await merge(pull.number);
    expect(first.status).toBe(405);
    expect(first.body.message).toBe(refusal('Does not have enough approvals'));

    // A reader's approval is not official and does not count.
    const outsider = await kiln.make.userWithToken();
    expect((await review(pull.number, outsider.token, 'APPROVED')).body.official).toBe(false);
    expect((await merge(pull.number)).status).toBe(405);

    expect((await review(pull.number, alice.token, 'APPROVED')).body.official).toBe(true);
    const rejected = await review(pull.number, carol.token, 'REQUEST_CHANGES');
    const second = await merge(pull.number);
    expect(second.body.message).toBe(refusal('There are requested changes'));

    const dismissed = await call(
      `${repo}/pulls/${pull.number}/reviews/${rejected.body.id}/dismissals`,
      {
        body: { message: 'addressed' },
      },
    );
    expect(dismissed.status).toBe(200);

    // The base moves on: the head is behind it now.
    await world.pushBranch('main', { 'c.txt': 'c\n' });
    const third = await merge(pull.number);
    expect(third.body.message).toBe(refusal('The head branch is behind the base branch'));
    // Asked again about the same two commits, the answer is remembered rather than asked of git.
    const outdatedHits = () =>
      kiln.app.caches.readings().find((cache) => cache.name === 'pull_outdated_heads')?.hits;
    const hitsBefore = outdatedHits() ?? 0;
    const again = await merge(pull.number);
    expect(again.body.message).toBe(refusal('The head branch is behind the base branch'));
    expect(outdatedHits()).toBe(hitsBefore + 1);

    // The head takes the base in; the approval (not stale-dismissing) still counts.
    await git.ok(['fetch', '-q', 'origin'], { cwd: world.work });
    await git.ok(['checkout', '-q', '-B', 'feature', 'origin/feature'], { cwd: world.work });
    await git.ok(['merge', '-q', '--no-edit', 'origin/main'], { cwd: world.work });
    await git.ok(['push', '-q', 'origin', 'feature:feature'], { cwd: world.work });
    const found = await kiln.app.services.pulls.get(
      world.owner,
      world.owner.handle,
      world.name,
      pull.number,
    );
    // The push reaches the pull (and its timeline) after git returns.
    const kinds = async () =>
      (await kiln.app.services.pullTimeline.listOf(found)).map((entry) => entry.kind);
    await expect.poll(kinds, { timeout: 10_000 }).toContain('push');
    expect((await merge(pull.number)).status).toBe(200);
    // The merge is announced after the answer; the timeline records it from the announcement.
    await kiln.app.services.pullMerges.settle();
    const timeline = await kiln.app.services.pullTimeline.listOf(found);
    expect(timeline.map((entry) => entry.kind)).toEqual(['push', 'merged']);
    expect(timeline[0]?.commits).toBe(2);
  });

  it('lets only an admin force a blocked merge, and records it', async () => {
    await world.pushBranch('forced', { 'd.txt': 'd\n' });
    const pull = await world.openPull('forced');
    const byWriter = await merge(pull.number, alice.token, { Do: 'merge', force_merge: true });
    expect(byWriter.status).toBe(405);
    const byAdmin = await merge(pull.number, world.token, { Do: 'merge', force_merge: true });
    expect(byAdmin.status).toBe(200);
    const found = await kiln.app.services.pulls.get(
      world.owner,
      world.owner.handle,
      world.name,
      pull.number,
    );
    expect(found.pull.merged).toBe(true);
    const [override] = (await kiln.app.services.pullTimeline.listOf(found)).filter(
      (entry) => entry.kind === 'merge_override',
    );
    expect(override?.note).toBe('Does not have enough approvals');
  });

  it('keeps those off an enabled merge whitelist from merging', async () => {
    await call(`${repo}/branch_protections/ma*`, {
      method: 'PATCH',
      body: {
        enable_merge_whitelist: true,
        required_approvals: 0,
        block_on_outdated_branch: false,
      },
    });
    await world.pushBranch('listed', { 'e.txt': 'e\n' });
    const pull = await world.openPull('listed');
    const byCarol = await merge(pull.number, carol.token);
    expect(byCarol.status).toBe(405);
    expect(byCarol.body.message).toBe('User not allowed to merge PR');
    expect((await merge(pull.number, alice.token)).status).toBe(200);
  });

  it('lets only the push whitelist push to, or create, branches of a pattern rule', async () => {
    await world.pushBranch('release/1', { 'r.txt': '1\n' });
    const rule = await call(`${repo}/branch_protections`, {
      body: {
        rule_name: 'release/*',
        enable_push: true,
        enable_push_whitelist: true,
        push_whitelist_usernames: [alice.user.handle],
      },
    });
    expect(rule.body).toMatchObject({ push_whitelist_usernames: [alice.user.handle] });
    await git.ok(['commit', '-q', '--allow-empty', '-m', 'more'], { cwd: world.work });
    const push = (token: string, ref: string) =>
      git.run(
        [
          'push',
          '-q',
          repoUrl(kiln.url, world.owner.handle, world.name, { token, as: 'username' }),
          `HEAD:refs/heads/${ref}`,
        ],
        { cwd: world.work },
      );
    for (const ref of ['release/1', 'release/2']) {
      const refused = await push(carol.token, ref);
      expect(refused.code, ref).not.toBe(0);
      expect(refused.stderr).toContain('you may not push to this protected branch');
    }
    expect((await push(carol.token, 'elsewhere')).code).toBe(0);
    expect((await push(alice.token, 'release/1')).code).toBe(0);
    expect((await push(alice.token, 'release/2')).code).toBe(0);
    // Push disabled: nobody, the whitelist included.
    await call(`${repo}/branch_protections/release%2F*`, {
      method: 'PATCH',
      body: { enable_push: false },
    });
    await git.ok(['commit', '-q', '--allow-empty', '-m', 'again'], { cwd: world.work });
    expect((await push(alice.token, 'release/2')).code).not.toBe(0);
  });

  it('keeps new branches of a barred rule with alternatives from being created', async () => {
    await call(`${repo}/branch_protections`, {
      body: { rule_name: '{hotfix,patch}/*', enable_push: false },
    });
    await git.ok(['commit', '-q', '--allow-empty', '-m', 'hot'], { cwd: world.work });
    for (const ref of ['hotfix/1', 'patch/a/b']) {
      const url = repoUrl(kiln.url, world.owner.handle, world.name, {
        token: carol.token,
        as: 'username',
      });
      const refused = await git.run(['push', '-q', url, `HEAD:refs/heads/${ref}`], {
        cwd: world.work,
      });
      expect(refused.code, ref).not.toBe(0);
      expect(refused.stderr).toContain('you may not push to this protected branch');
    }
  });
});
