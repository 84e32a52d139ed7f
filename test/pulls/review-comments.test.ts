/**
 * Line-review comments: anchored to a line of the pull's diff at a commit (422 otherwise),
 * stored verbatim, kept on their commit after later pushes, replies inherit the anchor, and
 * only the author or a writer may edit or delete, through `/pulls/comments/{id}`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitClient } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type PullWorld, pullWorld } from './support.ts';

let kiln: TestServer;
let git: GitClient;
let world: PullWorld;
let headSha: string;
let comments: string;

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  world = await pullWorld(kiln, git);
  await world.pushBranch('main', { 'code.txt': 'one\ntwo\nthree\nfour\nfive\n' });
  headSha = await world.pushBranch('edit', { 'code.txt': 'one\nTWO\nthree\nfour\nfive\nsix\n' });
  await world.openPull('edit');
  comments = `/repos/${world.owner.handle}/${world.name}/pulls/1/comments`;
});
afterAll(async () => {
  await kiln?.close();
  await git?.dispose();
});

describe('creating comments', () => {
  it('anchors a comment to a new-side line with its hunk', async () => {
    const body = '<script>alert(1)</script> <!-- note --> Looks **fine**';
    const created = await world.api(comments, { body: { body, path: 'code.txt', line: 2 } });
    expect(created.status).toBe(201);
    const comment = created.body;
    expect(comment.body).toBe(body);
    expect(comment.path).toBe('code.txt');
    expect(comment.line).toBe(2);
    expect(comment.old_line).toBeNull();
    expect(comment.side).toBe('RIGHT');
    expect(comment.commit_id).toBe(headSha);
    expect(comment.original_commit_id).toBe(headSha);
    expect(comment.diff_hunk).toMatch(/^@@ -1,5 \+1,6 @@/);
    expect(comment.diff_hunk.split('\n').at(-1)).toBe('+TWO');
    expect(comment.in_reply_to_id).toBeNull();
    expect(comment.user.login).toBe(world.owner.handle);
    expect(comment.user).not.toHaveProperty('email');
    expect(comment.pull_request_url).toBe(
      `${kiln.url}/api/v1/repos/${world.owner.handle}/${world.name}/pulls/1`,
    );
  });

  it('anchors to the old side with side LEFT', async () => {
    const created = await world.api(comments, {
      body: { body: 'was two', path: 'code.txt', old_line: 2, side: 'LEFT' },
    });
    expect(created.status).toBe(201);
    expect(created.body.old_line).toBe(2);
    expect(created.body.line).toBeNull();
    expect(created.body.diff_hunk.split('\n').at(-1)).toBe('-two');
  });

  it.each([
    [{ body: 'x', path: 'missing.txt', line: 1 }],
    [{ body: 'x', path: 'code.txt', line: 40 }],
    [{ body: 'x', path: 'code.txt', old_line: 6, side: 'LEFT' }],
    [{ body: 'x', path: 'code.txt' }],
    [{ body: 'x', line: 1 }],
    [{ body: '', path: 'code.txt', line: 2 }],
    [{ body: 'x', path: 'code.txt', line: 2, commit_id: 'f'.repeat(40) }],
    [{ body: 'x', path: 'code.txt', line: 'two' }],
  ])('refuses %j with 422', async (body) => {
    expect((await world.api(comments, { body })).status).toBe(422);
  });

  it('replies inherit path, line and commit', async () => {
    const first = await world.api(comments, { body: { body: 'q', path: 'code.txt', line: 6 } });
    const reply = await world.api(comments, { body: { body: 'a', in_reply_to_id: first.body.id } });
    expect(reply.status).toBe(201);
    expect(reply.body.in_reply_to_id).toBe(first.body.id);
    expect(reply.body.path).toBe('code.txt');
    expect(reply.body.line).toBe(6);
    expect((await world.api(comments, { body: { body: 'a', in_reply_to_id: 12345 } })).status).toBe(
      422,
    );
  });

  it('keeps comments on their commit after a later push', async () => {
    const later = await world.pushBranch('edit', { 'other.txt': 'more\n' }, 'edit');
    const list = await world.api(comments);
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThanOrEqual(3);
    expect(list.body.every((c: { commit_id: string }) => c.commit_id === headSha)).toBe(true);
    const onNewCommit = await world.api(comments, {
      body: { body: 'new', path: 'other.txt', line: 1 },
    });
    expect(onNewCommit.status).toBe(201);
    expect(onNewCommit.body.commit_id).toBe(later);
  });
});

describe('editing and deleting', () => {
  it('lets the author edit, refuses others, and deletes', async () => {
    const { user: other, token: otherToken } = await kiln.make.userWithToken();
    const created = await world.api(comments, {
      body: { body: 'mine', path: 'code.txt', line: 1 },
    });
    const byId = `/repos/${world.owner.handle}/${world.name}/pulls/comments/${created.body.id}`;
    const edited = await world.api(byId, { method: 'PATCH', body: { body: 'edited' } });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toBe('edited');

    const theirs = await world.api(comments, {
      body: { body: 'theirs', path: 'code.txt', line: 1 },
      token: otherToken,
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body.user.login).toBe(other.handle);
    const theirId = `/repos/${world.owner.handle}/${world.name}/pulls/comments/${theirs.body.id}`;
    expect(
      (await world.api(byId, { method: 'PATCH', body: { body: 'hijack' }, token: otherToken }))
        .status,
    ).toBe(403);
    expect((await world.api(byId, { method: 'DELETE', token: otherToken })).status).toBe(403);
    // The repository admin may remove anyone's comment.
    expect((await world.api(theirId, { method: 'DELETE' })).status).toBe(204);
    expect((await world.api(byId, { method: 'DELETE' })).status).toBe(204);
    expect((await world.api(byId, { method: 'DELETE' })).status).toBe(404);
  });

  it('hides comments of a private repository from outsiders', async () => {
    const { token: outsider } = await kiln.make.userWithToken();
    const hidden = await pullWorld(kiln, git);
    await hidden.api(`/repos/${hidden.owner.handle}/${hidden.name}`, {
      method: 'PATCH',
      body: { private: true },
    });
    await hidden.pushBranch('b', { 'b.txt': 'b\n' });
    await hidden.openPull('b');
    const path = `/repos/${hidden.owner.handle}/${hidden.name}/pulls/1/comments`;
    expect((await hidden.api(path, { token: outsider })).status).toBe(404);
    expect(
      (await hidden.api(path, { body: { body: 'x', path: 'b.txt', line: 1 }, token: outsider }))
        .status,
    ).toBe(404);
  });
});
