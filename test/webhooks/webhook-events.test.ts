/**
 * Webhook events from real actions: git pushes of branches and tags with the git CLI, the pull
 * lifecycle, review comments and releases through the REST API. A real receiver on 127.0.0.1
 * (allowed by configuration, as loopback is refused by default) checks the headers, both
 * signatures recomputed independently, and the nested records against Gitea's swagger.
 */
import { createHmac } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Caller, caller, createRepo } from '../api/fixtures.ts';
import { expectGiteaDefinition } from '../api/gitea-swagger.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type Received, Receiver } from './receiver.ts';

const SECRET = 'hook secret \u00e9';
let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;
let receiver: Receiver;
let client: GitClient;
let work: string;

const payloadOf = (entry: Received) => JSON.parse(entry.body);

/** The REST calls of the pull lifecycle, unchecked (their answers are not under test here). */
function rest(path: string, method = 'GET', body?: unknown) {
  return fetch(`${kiln.url}/api/v1${path}`, {
    method,
    headers: { authorization: `token ${alice.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    SERVICE_SECRET_KEY: 'test secret key for webhooks',
    SERVICE_BASE_URL: 'http://kiln.test',
  });
  api = apiClient(kiln);
  alice = await caller(kiln, 'Alice Doe');
  receiver = await Receiver.start();
  client = await GitClient.create();
  await createRepo(kiln, alice, 'app');
  const hook = await api(`/repos/${alice.handle}/app/hooks`, {
    token: alice.token,
    method: 'POST',
    body: {
      type: 'gitea',
      config: { url: receiver.url, content_type: 'json', secret: SECRET },
      events: [
        'push',
        'create',
        'delete',
        'pull_request',
        'pull_request_review_comment',
        'release',
      ],
      active: true,
    },
  });
  expect(hook.status).toBe(201);
  const url = repoUrl(kiln.url, alice.handle, 'app', { token: alice.token, as: 'username' });
  work = await client.clone(url);
});
afterAll(async () => {
  await receiver?.close();
  await client?.dispose();
  await kiln?.close();
});

describe('push, create and delete', () => {
  it('sends push with the commits, their files and both signatures', async () => {
    await client.commit(work, { 'a.txt': 'a\n' }, 'add a');
    const second = await client.commit(work, { 'b.txt': 'b\n' }, 'add b');
    await client.ok(['rm', '-q', 'a.txt'], { cwd: work });
    const third = await client.commit(work, { 'b.txt': 'b2\n' }, 'drop a, change b');
    const before = await client.ok(['rev-parse', 'origin/main'], { cwd: work });
    await client.ok(['push', '-q', 'origin', 'main'], { cwd: work });
    const [push] = await receiver.waitFor(
      (entry) => entry.headers['x-gitea-event'] === 'push' && payloadOf(entry).after === third,
    );
    const entry = push as Received;
    const expected = createHmac('sha256', SECRET).update(entry.body).digest('hex');
    expect(entry.headers['x-gitea-signature']).toBe(expected);
    expect(entry.headers['x-hub-signature-256']).toBe(`sha256=${expected}`);
    // A GitHub-style receiver checks it with Octokit's own verifier, unchanged.
    expect(await verify(SECRET, entry.body, String(entry.headers['x-hub-signature-256']))).toBe(
      true,
    );
    expect(await verify('another secret', entry.body, `sha256=${expected}`)).toBe(false);
    expect(entry.headers['x-hub-signature']).toBe(
      `sha1=${createHmac('sha1', SECRET).update(entry.body).digest('hex')}`,
    );
    expect(entry.headers['x-gitea-event-type']).toBe('push');
    expect(entry.headers['x-github-event']).toBe('push');
    expect(entry.headers['x-forgejo-event']).toBe('push');
    expect(entry.headers['x-gitea-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(entry.headers['x-github-delivery']).toBe(entry.headers['x-gitea-delivery']);
    expect(entry.headers['content-type']).toBe('application/json');
    const payload = payloadOf(entry);
    expect(payload).toMatchObject({
      ref: 'refs/heads/main',
      before,
      after: third,
      total_commits: 3,
      compare_url: `http://kiln.test/repos/${alice.handle}/app/compare/${before}...${third}`,
    });
    expect(Object.keys(payload)).toEqual([
      'ref',
      'before',
      'after',
      'compare_url',
      'commits',
      'total_commits',
      'head_commit',
      'repository',
      'pusher',
      'sender',
    ]);
    expect(payload.commits.map((commit: { id: string }) => commit.id)).toEqual([
      third,
      second,
      expect.any(String),
    ]);
    expect(payload.commits[0]).toMatchObject({
      added: [],
      removed: ['a.txt'],
      modified: ['b.txt'],
    });
    expect(payload.commits[1]).toMatchObject({ added: ['b.txt'], removed: [], modified: [] });
    expect(payload.head_commit.id).toBe(third);
    for (const commit of payload.commits) expectGiteaDefinition(commit, 'PayloadCommit');
    expectGiteaDefinition(payload.repository, 'Repository');
    expectGiteaDefinition(payload.pusher, 'User');
    expect(payload.pusher.login).toBe(alice.handle);
    expect(payload.repository.full_name).toBe(`${alice.handle}/app`);
  });

  it('sends create and push for a new branch and a new tag, delete when removed', async () => {
    await client.ok(['checkout', '-q', '-b', 'feature'], { cwd: work });
    const tip = await client.commit(work, { 'f.txt': 'f\n' }, 'feature work');
    await client.ok(['tag', 'v1.0.0'], { cwd: work });
    await client.ok(['push', '-q', 'origin', 'feature', 'v1.0.0'], { cwd: work });
    const creates = await receiver.waitFor(
      (entry) => entry.headers['x-gitea-event'] === 'create',
      2,
    );
    const created = creates.map(payloadOf);
    expect(created).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ref: 'feature', ref_type: 'branch', sha: tip }),
        expect.objectContaining({ ref: 'v1.0.0', ref_type: 'tag', sha: tip }),
      ]),
    );
    const pushes = await receiver.waitFor(
      (entry) =>
        entry.headers['x-gitea-event'] === 'push' && payloadOf(entry).ref === 'refs/tags/v1.0.0',
    );
    expect(payloadOf(pushes[0] as Received).before).toBe('0'.repeat(40));
    await client.ok(['push', '-q', 'origin', ':refs/tags/v1.0.0'], { cwd: work });
    const [deleted] = await receiver.waitFor(
      (entry) => entry.headers['x-gitea-event'] === 'delete',
    );
    expect(payloadOf(deleted as Received)).toMatchObject({
      ref: 'v1.0.0',
      ref_type: 'tag',
      pusher_type: 'user',
    });
  });
});

describe('pull requests and review comments', () => {
  it('follows a pull from opened through synchronized, edited, closed, reopened to merged', async () => {
    const pulls = `/repos/${alice.handle}/app/pulls`;
    const opened = await rest(pulls, 'POST', { title: 'Feature', head: 'feature', base: 'main' });
    expect(opened.status).toBe(201);
    const { number } = await json(opened);
    const isPull = (action: string) => (entry: Received) =>
      entry.headers['x-gitea-event'] === 'pull_request' && payloadOf(entry).action === action;
    const [open] = await receiver.waitFor(isPull('opened'));
    const payload = payloadOf(open as Received);
    expect(payload.number).toBe(number);
    expectGiteaDefinition(payload.pull_request, 'PullRequest');
    expectGiteaDefinition(payload.repository, 'Repository');
    expectGiteaDefinition(payload.sender, 'User');

    await client.commit(work, { 'g.txt': 'g\n' }, 'more');
    await client.ok(['push', '-q', 'origin', 'feature'], { cwd: work });
    const [sync] = await receiver.waitFor(isPull('synchronized'));
    expect((sync as Received).headers['x-gitea-event-type']).toBe('pull_request_sync');

    const patch = (body: object) => rest(`${pulls}/${number}`, 'PATCH', body);
    expect((await patch({ title: 'Feature, better' })).status).toBe(201);
    await receiver.waitFor(isPull('edited'));
    expect((await patch({ state: 'closed' })).status).toBe(201);
    const [closed] = await receiver.waitFor(isPull('closed'));
    expect(payloadOf(closed as Received).pull_request.merged).toBe(false);
    expect((await patch({ state: 'open' })).status).toBe(201);
    await receiver.waitFor(isPull('reopened'));

    const comment = await rest(`${pulls}/${number}/comments`, 'POST', {
      body: 'Looks right',
      path: 'g.txt',
      line: 1,
    });
    expect(comment.status).toBe(201);
    const [review] = await receiver.waitFor(
      (entry) => entry.headers['x-gitea-event-type'] === 'pull_request_review_comment',
    );
    expect(payloadOf(review as Received)).toMatchObject({
      action: 'reviewed',
      review: { type: 'pull_request_review_comment', content: 'Looks right' },
    });

    const merge = await rest(`${pulls}/${number}/merge`, 'POST', { Do: 'merge' });
    expect(merge.status).toBe(200);
    const closes = await receiver.waitFor(isPull('closed'), 2);
    const merged = payloadOf(closes[1] as Received);
    expect(merged.pull_request.merged).toBe(true);
    expectGiteaDefinition(merged.pull_request, 'PullRequest');
  });
  it('announces each change of a pull once: closing, reopening or merging sends no opened', async () => {
    await client.ok(['checkout', '-q', '-b', 'solo', 'origin/main'], { cwd: work });
    await client.commit(work, { 'solo.txt': 'solo\n' }, 'solo');
    await client.ok(['push', '-q', 'origin', 'solo'], { cwd: work });
    const pulls = `/repos/${alice.handle}/app/pulls`;
    const opened = await rest(pulls, 'POST', { title: 'Solo', head: 'solo', base: 'main' });
    expect(opened.status).toBe(201);
    const { number } = await json(opened);
    const isPull = (action: string) => (entry: Received) =>
      entry.headers['x-gitea-event'] === 'pull_request' &&
      payloadOf(entry).action === action &&
      payloadOf(entry).number === number;
    await receiver.waitFor(isPull('opened'));
    const patch = (body: object) => rest(`${pulls}/${number}`, 'PATCH', body);
    expect((await patch({ state: 'closed' })).status).toBe(201);
    await receiver.waitFor(isPull('closed'));
    expect((await patch({ state: 'open' })).status).toBe(201);
    await receiver.waitFor(isPull('reopened'));
    const merge = await rest(`${pulls}/${number}/merge`, 'POST', { Do: 'merge' });
    expect(merge.status).toBe(200);
    await receiver.waitFor(isPull('closed'), 2);
    const queued = await kiln.app.database.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('event', '=', 'pull_request')
      .execute();
    const actions = queued
      .map((row) => JSON.parse(row.payload))
      .filter((payload) => payload.number === number)
      .map((payload) => payload.action)
      .sort();
    expect(actions).toEqual(['closed', 'closed', 'opened', 'reopened']);
    expect(receiver.received.filter(isPull('opened'))).toHaveLength(1);
  });
});

describe('releases', () => {
  it('sends published, updated and deleted', async () => {
    const releases = `/repos/${alice.handle}/app/releases`;
    const created = await api(releases, {
      token: alice.token,
      method: 'POST',
      body: { tag_name: 'v2.0.0', name: 'Two' },
    });
    expect(created.status).toBe(201);
    const { id } = await json(created);
    const isRelease = (action: string) => (entry: Received) =>
      entry.headers['x-gitea-event'] === 'release' && payloadOf(entry).action === action;
    const [published] = await receiver.waitFor(isRelease('published'));
    const payload = payloadOf(published as Received);
    expectGiteaDefinition(payload.release, 'Release');
    expect(payload.release.tag_name).toBe('v2.0.0');
    await api(`${releases}/${id}`, { token: alice.token, method: 'PATCH', body: { name: 'Deux' } });
    const [updated] = await receiver.waitFor(isRelease('updated'));
    expect(payloadOf(updated as Received).release.name).toBe('Deux');
    await api(`${releases}/${id}`, { token: alice.token, method: 'DELETE' });
    await receiver.waitFor(isRelease('deleted'));
  });
});
