/**
 * Reviews through Gitea's API: pending until submitted and seen by the reviewer alone, verdicts
 * with Gitea's rules (no approving one's own pull, a request for changes says why), official
 * only from writers, dismissed by repository admins, deleted by the reviewer; every answer
 * matches Gitea 1.22's swagger definitions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { checkGiteaResponse } from '../api/gitea-swagger.ts';
import { GitClient } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type PullWorld, pullWorld } from './support.ts';

let kiln: TestServer;
let git: GitClient;
let world: PullWorld;
let alice: { user: User; token: string };
let bob: { user: User; token: string };
let reviews: string;
let headSha: string;

/** A call checked against Gitea's swagger for its method, path and status. */
async function call(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const answer = await world.api(path, init);
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  checkGiteaResponse(method, path, answer.status, answer.body);
  return answer;
}

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  world = await pullWorld(kiln, git);
  alice = await kiln.make.userWithToken();
  bob = await kiln.make.userWithToken();
  const repo = `/repos/${world.owner.handle}/${world.name}`;
  const added = await world.api(`${repo}/collaborators/${alice.user.handle}`, {
    method: 'PUT',
    body: { permission: 'write' },
  });
  expect(added.status).toBe(204);
  await world.pushBranch('main', { 'code.txt': 'one\ntwo\nthree\n' });
  headSha = await world.pushBranch('edit', { 'code.txt': 'one\nTWO\nthree\nfour\n' });
  await world.openPull('edit');
  reviews = `${repo}/pulls/1/reviews`;
});
afterAll(async () => {
  await kiln?.close();
  await git?.dispose();
});

describe('pull request reviews', () => {
  it('keeps a pending review and its comments to the reviewer until submitted', async () => {
    const pending = await call(reviews, {
      token: alice.token,
      body: {
        body: 'first look',
        comments: [{ path: 'code.txt', new_position: 2, body: 'caps?' }],
      },
    });
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ state: 'PENDING', comments_count: 1, official: false });
    const id = pending.body.id;

    const seenByBob = await call(reviews, { token: bob.token });
    expect(seenByBob.body).toEqual([]);
    expect((await call(`${reviews}/${id}`, { token: bob.token })).status).toBe(404);
    const lineComments = `/repos/${world.owner.handle}/${world.name}/pulls/1/comments`;
    expect((await world.api(lineComments, { token: bob.token })).body).toEqual([]);
    expect((await world.api(lineComments, { token: alice.token })).body).toHaveLength(1);
    // The pull's count is what each caller may read: the pending comment is alice's alone.
    const pull = `/repos/${world.owner.handle}/${world.name}/pulls/1`;
    expect((await world.api(pull, { token: bob.token })).body.review_comments).toBe(0);
    expect((await world.api(pull, { token: alice.token })).body.review_comments).toBe(1);

    const submitted = await call(`${reviews}/${id}`, {
      token: alice.token,
      body: { event: 'APPROVED', body: 'looks right' },
    });
    expect(submitted.status).toBe(200);
    expect((await world.api(pull, { token: bob.token })).body.review_comments).toBe(1);
    expect(submitted.body).toMatchObject({
      id,
      state: 'APPROVED',
      body: 'looks right',
      official: true,
      stale: false,
      dismissed: false,
      commit_id: headSha,
      user: { login: alice.user.handle },
    });
    const listed = await call(reviews, { token: bob.token });
    expect(listed.body.map((review: { id: number }) => review.id)).toEqual([id]);
    const carried = await call(`${reviews}/${id}/comments`, { token: bob.token });
    expect(carried.body).toMatchObject([
      { body: 'caps?', path: 'code.txt', position: 2, original_position: 0 },
    ]);
    expect(carried.body[0].pull_request_review_id).toBe(id);
    // Submitting again is refused: only a pending review is submitted.
    const again = await call(`${reviews}/${id}`, {
      token: alice.token,
      body: { event: 'COMMENT' },
    });
    expect(again.status).toBe(422);
  });

  it('keeps a pending comment out of reach of anyone but its reviewer, by id too', async () => {
    const pending = await call(reviews, {
      token: alice.token,
      body: { comments: [{ path: 'code.txt', new_position: 4, body: 'draft thought' }] },
    });
    expect(pending.body.state).toBe('PENDING');
    const lineComments = `/repos/${world.owner.handle}/${world.name}/pulls/1/comments`;
    const mine = await world.api(lineComments, { token: alice.token });
    const draft = mine.body.find((c: { body: string }) => c.body === 'draft thought');
    const byId = `/repos/${world.owner.handle}/${world.name}/pulls/comments/${draft.id}`;
    // The repository's admin may change anyone's comment, but a draft is not there for them yet.
    const edited = await world.api(byId, { method: 'PATCH', body: { body: 'seen' } });
    expect(edited.status).toBe(404);
    expect(JSON.stringify(edited.body)).not.toContain('draft thought');
    expect((await world.api(byId, { method: 'DELETE' })).status).toBe(404);
    const reply = await world.api(lineComments, { body: { body: 'a', in_reply_to_id: draft.id } });
    expect(reply.status).toBe(422);
    // Its reviewer still edits it, and the submitted review carries it unchanged otherwise.
    expect(
      (await world.api(byId, { method: 'PATCH', token: alice.token, body: { body: 'ok' } })).status,
    ).toBe(200);
    await call(`${reviews}/${pending.body.id}`, { method: 'DELETE', token: alice.token });
  });

  it.each([
    [
      'the author approving',
      'owner',
      { event: 'APPROVED' },
      'approve your own pull is not allowed',
    ],
    ['the author rejecting', 'owner', { event: 'REQUEST_CHANGES', body: 'x' }, 'reject your own'],
    ['changes without a reason', 'alice', { event: 'REQUEST_CHANGES' }, 'requires a body'],
    ['an empty comment review', 'alice', { event: 'COMMENT' }, 'requires a body or a comment'],
    ['an unknown verdict', 'alice', { event: 'MAYBE', body: 'x' }, ''],
    [
      'a line outside the diff',
      'alice',
      { event: 'COMMENT', comments: [{ path: 'code.txt', new_position: 40, body: 'x' }] },
      'not part of the diff',
    ],
  ])('refuses %s with 422', async (_what, who, body, message) => {
    const token = who === 'owner' ? world.token : alice.token;
    const answer = await call(reviews, { token, body });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain(message);
  });

  it('counts a reader’s review as unofficial and lets only admins dismiss', async () => {
    const comment = await call(reviews, {
      token: bob.token,
      body: { event: 'COMMENT', body: 'a plain comment' },
    });
    expect(comment.body).toMatchObject({ state: 'COMMENT', official: false });
    const rejected = await call(reviews, {
      token: alice.token,
      body: { event: 'REQUEST_CHANGES', body: 'please rename' },
    });
    expect(rejected.body).toMatchObject({ state: 'REQUEST_CHANGES', official: true });
    const dismiss = (token: string, id: number) =>
      call(`${reviews}/${id}/dismissals`, { token, body: { message: 'handled' } });
    expect((await dismiss(alice.token, rejected.body.id)).status).toBe(403);
    expect((await dismiss(world.token, comment.body.id)).status).toBe(422);
    const dismissed = await dismiss(world.token, rejected.body.id);
    expect(dismissed.status).toBe(200);
    expect(dismissed.body).toMatchObject({ dismissed: true, state: 'REQUEST_CHANGES' });
    expect((await call(`${reviews}/${rejected.body.id}`)).body.dismissed).toBe(true);
  });

  it('lets the reviewer or an admin delete a review, nobody else', async () => {
    const review = await call(reviews, { token: bob.token, body: { event: 'COMMENT', body: 'x' } });
    const path = `${reviews}/${review.body.id}`;
    expect((await call(path, { method: 'DELETE', token: alice.token })).status).toBe(403);
    expect((await call(path, { method: 'DELETE', token: bob.token })).status).toBe(204);
    expect((await call(path)).status).toBe(404);
  });

  it('answers 404 for a review of another pull or no review', async () => {
    expect((await call(`${reviews}/999999`)).status).toBe(404);
    const other = `/repos/${world.owner.handle}/${world.name}/pulls/99/reviews`;
    expect((await call(other)).status).toBe(404);
  });
});
