/**
 * Pull requests, line-review comments and releases through the `kiln mcp` subprocess: records
 * equal to REST's but for null URLs, writes that REST then sees, REST's messages for domain
 * errors, and argument mistakes answered as tool errors while the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { auth, type Json, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { callTool, commitTo, connectMcp, type McpSession, withNullUrls } from './support.ts';

let kiln: TestServer;
let alice: User;
let aliceToken: string;
let bobToken: string;
let mcp: McpSession;
let repo: { owner: string; repo: string };

async function rest(path: string, token = aliceToken): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${kiln.url}/api/v1${path}`, { headers: auth.token(token) });
  return { status: response.status, body: await json(response) };
}

beforeAll(async () => {
  kiln = await startTestServer();
  ({ user: alice, token: aliceToken } = await kiln.make.userWithToken());
  ({ token: bobToken } = await kiln.make.userWithToken());
  await kiln.app.services.repos.create(alice, { name: 'site', autoInit: true });
  repo = { owner: alice.handle, repo: 'site' };
  await commitTo(kiln, alice.handle, 'site', 'feature', { 'page.html': '<h1>hi</h1>\n<p>x</p>\n' });
  await commitTo(kiln, alice.handle, 'site', 'second', { 'second.txt': 'two\n' });
  mcp = await connectMcp(kiln, { token: aliceToken });
});
afterAll(async () => {
  await mcp?.close();
  await kiln?.close();
});

describe('pull requests', () => {
  it('creates, reads and lists a pull exactly as REST shows it, URLs aside', async () => {
    const created = await callTool(mcp, 'create_pull_request', {
      ...repo,
      title: 'New page',
      head: 'feature',
      base: 'main',
      body: 'Adds a page',
    });
    expect(created.isError).toBe(false);
    expect(created.structured).toMatchObject({
      number: 1,
      state: 'open',
      merged: false,
      mergeable: true,
      html_url: null,
      diff_url: null,
      head: { ref: 'feature' },
      base: { ref: 'main' },
    });
    expect(created.structured.head.repo.clone_url).toBeNull();
    const fromRest = (await rest(`/repos/${alice.handle}/site/pulls/1`)).body;
    const fetched = await callTool(mcp, 'get_pull_request', { ...repo, number: 1 });
    expect(fetched.structured).toEqual(withNullUrls(fromRest, kiln.url));
    const listed = await callTool(mcp, 'list_pull_requests', { ...repo, state: 'open' });
    expect(listed.structured).toMatchObject({ total: 1, next_page: null });
    expect(listed.structured.items).toEqual([fetched.structured]);
  });

  it('edits, closes and reopens a pull; REST sees each change', async () => {
    const edited = await callTool(mcp, 'update_pull_request', {
      ...repo,
      number: 1,
      title: 'New landing page',
      state: 'closed',
    });
    expect(edited.structured).toMatchObject({ title: 'New landing page', state: 'closed' });
    expect((await rest(`/repos/${alice.handle}/site/pulls/1`)).body.state).toBe('closed');
    const closedList = await callTool(mcp, 'list_pull_requests', { ...repo, state: 'closed' });
    expect(closedList.structured.items.map((pull: Json) => pull.number)).toEqual([1]);
    const reopened = await callTool(mcp, 'update_pull_request', {
      ...repo,
      number: 1,
      state: 'open',
    });
    expect(reopened.structured.state).toBe('open');
  });

  it('a pull of someone without write access may not be edited by others', async () => {
    const asBob = await connectMcp(kiln, { token: bobToken });
    try {
      const answer = await callTool(asBob, 'update_pull_request', {
        ...repo,
        number: 1,
        title: 'mine now',
      });
      expect(answer).toMatchObject({
        isError: true,
        text: 'only the author or a writer may edit this pull request',
      });
      const merge = await callTool(asBob, 'merge_pull_request', { ...repo, number: 1 });
      expect(merge.isError).toBe(true);
    } finally {
      await asBob.close();
    }
  });

  it('comments on a line of the diff and lists the comment', async () => {
    const created = await callTool(mcp, 'create_review_comment', {
      ...repo,
      number: 1,
      body: 'Needs a title',
      path: 'page.html',
      line: 1,
    });
    expect(created.isError).toBe(false);
    expect(created.structured).toMatchObject({
      body: 'Needs a title',
      path: 'page.html',
      line: 1,
      side: 'RIGHT',
      html_url: null,
      pull_request_url: null,
    });
    const reply = await callTool(mcp, 'create_review_comment', {
      ...repo,
      number: 1,
      body: 'Agreed',
      in_reply_to_id: created.structured.id,
    });
    expect(reply.structured).toMatchObject({
      path: 'page.html',
      in_reply_to_id: created.structured.id,
    });
    const listed = await callTool(mcp, 'list_review_comments', { ...repo, number: 1, limit: 1 });
    expect(listed.structured).toMatchObject({ total: 2, next_page: 2 });
    const fromRest = (await rest(`/repos/${alice.handle}/site/pulls/1/comments`)).body;
    expect(listed.structured.items).toEqual(withNullUrls(fromRest.slice(0, 1), kiln.url));
    const outside = await callTool(mcp, 'create_review_comment', {
      ...repo,
      number: 1,
      body: 'x',
      path: 'page.html',
      line: 99,
    });
    expect(outside).toMatchObject({
      isError: true,
      text: 'line 99 (RIGHT) of page.html is not part of the diff',
    });
  });

  it('reviews a pull: pending, then submitted, as REST lists it', async () => {
    const { token: carolToken, user: carol } = await kiln.make.userWithToken();
    const asCarol = await connectMcp(kiln, { token: carolToken });
    try {
      const pending = await callTool(asCarol, 'create_review', {
        ...repo,
        number: 1,
        body: 'first pass',
        comments: [{ path: 'page.html', new_position: 1, body: 'A heading?' }],
      });
      expect(pending.structured).toMatchObject({ state: 'PENDING', comments_count: 1 });
      const submitted = await callTool(asCarol, 'submit_review', {
        ...repo,
        number: 1,
        id: pending.structured.id,
        event: 'COMMENT',
      });
      expect(submitted.structured).toMatchObject({
        state: 'COMMENT',
        body: 'first pass',
        official: false,
        user: { login: carol.handle },
        html_url: null,
      });
      const own = await callTool(mcp, 'create_review', { ...repo, number: 1, event: 'APPROVED' });
      expect(own).toMatchObject({ isError: true, text: 'approve your own pull is not allowed' });
      const listed = await callTool(mcp, 'list_reviews', { ...repo, number: 1 });
      const fromRest = (await rest(`/repos/${alice.handle}/site/pulls/1/reviews`)).body;
      expect(listed.structured.items).toEqual(withNullUrls(fromRest, kiln.url));
    } finally {
      await asCarol.close();
    }
  });

  it('merges a pull and answers with the merged record', async () => {
    const merged = await callTool(mcp, 'merge_pull_request', { ...repo, number: 1 });
    expect(merged.structured).toMatchObject({ number: 1, merged: true, state: 'closed' });
    expect(merged.structured.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const again = await callTool(mcp, 'merge_pull_request', { ...repo, number: 1 });
    expect(again.isError).toBe(true);
    const missing = await callTool(mcp, 'get_pull_request', { ...repo, number: 42 });
    const fromRest = await rest(`/repos/${alice.handle}/site/pulls/42`);
    expect(missing).toMatchObject({ isError: true, text: fromRest.body.message });
  });
});

describe('releases', () => {
  it('publishes, lists and reads releases by tag and as latest', async () => {
    const created = await callTool(mcp, 'create_release', {
      ...repo,
      tag_name: 'v1.0.0',
      name: 'First',
      body: 'notes',
    });
    expect(created.structured).toMatchObject({
      tag_name: 'v1.0.0',
      target_commitish: 'main',
      name: 'First',
      draft: false,
      prerelease: false,
      zipball_url: null,
      tarball_url: null,
      html_url: null,
    });
    await callTool(mcp, 'create_release', {
      ...repo,
      tag_name: 'v2.0.0-rc1',
      target_commitish: 'second',
      prerelease: true,
    });
    const listed = await callTool(mcp, 'list_releases', repo);
    expect(listed.structured.items.map((release: Json) => release.tag_name)).toEqual([
      'v2.0.0-rc1',
      'v1.0.0',
    ]);
    const fromRest = (await rest(`/repos/${alice.handle}/site/releases/tags/v1.0.0`)).body;
    const byTag = await callTool(mcp, 'get_release', { ...repo, tag: 'v1.0.0' });
    expect(byTag.structured).toEqual(withNullUrls(fromRest, kiln.url));
    const latest = await callTool(mcp, 'get_latest_release', repo);
    expect(latest.structured.tag_name).toBe('v1.0.0');
  });

  it('answers conflicts and missing tags with REST’s messages', async () => {
    const again = await callTool(mcp, 'create_release', { ...repo, tag_name: 'v1.0.0' });
    expect(again).toMatchObject({
      isError: true,
      text: 'release tag already exists [tag_name: v1.0.0]',
    });
    const missing = await callTool(mcp, 'get_release', { ...repo, tag: 'v9' });
    const fromRest = await rest(`/repos/${alice.handle}/site/releases/tags/v9`);
    expect(fromRest.status).toBe(404);
    expect(missing).toMatchObject({ isError: true, text: fromRest.body.message });
  });
});

describe('argument mistakes', () => {
  it('answers bad arguments with tool errors and keeps serving', async () => {
    const wrongType = await callTool(mcp, 'get_pull_request', { ...repo, number: 'one' });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toContain('number');
    const missing = await callTool(mcp, 'get_repository', { owner: alice.handle });
    expect(missing.isError).toBe(true);
    const unknown = await callTool(mcp, 'get_repository', { ...repo, nmae: 'x' });
    expect(unknown.isError).toBe(true);
    const badState = await callTool(mcp, 'list_pull_requests', { ...repo, state: 'merged' });
    expect(badState.isError).toBe(true);
    const zeroLimit = await callTool(mcp, 'list_releases', { ...repo, limit: 0 });
    expect(zeroLimit.isError).toBe(true);
    await expect(
      mcp.client.callTool({ name: 'no_such_tool', arguments: {} }),
    ).resolves.toMatchObject({ isError: true });
    const me = await callTool(mcp, 'whoami');
    expect(me).toMatchObject({ isError: false, structured: { login: alice.handle } });
    expect(mcp.errors).toEqual([]);
  });

  it('writes logs to stderr and nothing but protocol messages to stdout', async () => {
    expect(mcp.stderr()).toContain('serving MCP tools on stdio');
    expect(mcp.errors).toEqual([]);
  });
});
