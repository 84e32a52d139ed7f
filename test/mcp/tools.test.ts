/**
 * The MCP tools through the real `node src/main.ts mcp` subprocess and the SDK's stdio client:
 * the tool list, every tool on data made through the domain, records equal to the REST ones
 * but for null URL fields, REST's error messages as tool errors, pagination capped at 50,
 * private repositories of others not found, and a server that survives bad arguments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { auth, type Json, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { callTool, commitTo, connectMcp, type McpSession, withNullUrls } from './support.ts';

const TOOLS = [
  'cancel_workflow_run',
  'create_pull_request',
  'create_release',
  'create_review',
  'create_review_comment',
  'get_branch',
  'get_job_log_tail',
  'get_latest_release',
  'get_pull_request',
  'get_release',
  'get_repository',
  'get_workflow_run',
  'list_branches',
  'list_pull_requests',
  'list_releases',
  'list_repositories',
  'list_review_comments',
  'list_reviews',
  'list_workflow_runs',
  'merge_pull_request',
  'rerun_workflow_run',
  'search',
  'submit_review',
  'update_pull_request',
  'whoami',
];

let kiln: TestServer;
let alice: User;
let aliceToken: string;
let bob: User;
let mcp: McpSession;
let featureSha: string;

async function rest(path: string, token = aliceToken): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${kiln.url}/api/v1${path}`, { headers: auth.token(token) });
  return { status: response.status, body: await json(response) };
}

beforeAll(async () => {
  kiln = await startTestServer();
  ({ user: alice, token: aliceToken } = await kiln.make.userWithToken());
  ({ user: bob } = await kiln.make.user({ fullName: 'Bob Builder' }));
  const { repos, pulls, releases } = kiln.app.services;
  await repos.create(alice, { name: 'app', description: 'the app', autoInit: true });
  await repos.create(alice, { name: 'tools', autoInit: true });
  await repos.create(bob, { name: 'secret', private: true, autoInit: true });
  await repos.create(bob, { name: 'open-app', autoInit: true });
  featureSha = await commitTo(kiln, alice.handle, 'app', 'feature/notes', {
    'notes.txt': 'one\ntwo\nthree\n',
  });
  await commitTo(kiln, alice.handle, 'app', 'other', { 'other.txt': 'x\n' });
  await pulls.create(alice, alice.handle, 'app', {
    title: 'Add notes',
    body: 'Notes for everyone',
    head: 'feature/notes',
    base: 'main',
  });
  await releases.create(alice, alice.handle, 'app', { tagName: 'v1.0.0', body: 'first' });
  await releases.create(alice, alice.handle, 'app', { tagName: 'v1.1.0-rc1', prerelease: true });
  mcp = await connectMcp(kiln, { token: aliceToken });
});
afterAll(async () => {
  await mcp?.close();
  await kiln?.close();
});

describe('the tool list', () => {
  it('offers every tool with a description and an object input schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
    }
    const listPulls = tools.find((tool) => tool.name === 'list_pull_requests');
    expect(Object.keys(listPulls?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['owner', 'repo', 'state', 'page', 'limit']),
    );
    expect(listPulls?.annotations?.readOnlyHint).toBe(true);
    const merge = tools.find((tool) => tool.name === 'merge_pull_request');
    expect(merge?.annotations?.readOnlyHint).toBe(false);
  });
});

describe('accounts and repositories', () => {
  it('whoami is the token owner, with email and null URLs', async () => {
    const me = await callTool(mcp, 'whoami');
    expect(me.isError).toBe(false);
    const fromRest = (await rest('/user')).body;
    expect(me.structured).toEqual(withNullUrls(fromRest, kiln.url));
    expect(me.structured).toMatchObject({ login: alice.handle, email: alice.email });
    expect(me.structured.html_url).toBeNull();
  });

  it('get_repository equals the REST record except for the null URL fields', async () => {
    const fromRest = (await rest(`/repos/${alice.handle}/app`)).body;
    const fromMcp = (await callTool(mcp, 'get_repository', { owner: alice.handle, repo: 'app' }))
      .structured;
    expect(fromRest.clone_url).toBe(`${kiln.url}/${alice.handle}/app.git`);
    expect(fromRest.html_url).toBe(`${kiln.url}/repos/${alice.handle}/app`);
    expect(fromMcp.clone_url).toBeNull();
    expect(fromMcp.html_url).toBeNull();
    expect(fromMcp.owner.html_url).toBeNull();
    expect(fromMcp).toEqual(withNullUrls(fromRest, kiln.url));
    expect(fromMcp).toMatchObject({
      full_name: `${alice.handle}/app`,
      default_branch: 'main',
      default_merge_style: 'merge',
      permissions: { admin: true, push: true, pull: true },
    });
  });

  it('a private repository of another user is not found, with REST’s message', async () => {
    const answer = await callTool(mcp, 'get_repository', { owner: bob.handle, repo: 'secret' });
    const fromRest = await rest(`/repos/${bob.handle}/secret`);
    expect(fromRest.status).toBe(404);
    expect(answer).toMatchObject({ isError: true, text: fromRest.body.message });
    const pulls = await callTool(mcp, 'list_pull_requests', { owner: bob.handle, repo: 'secret' });
    expect(pulls).toMatchObject({ isError: true, text: fromRest.body.message });
    const listed = await callTool(mcp, 'list_repositories', { owner: bob.handle });
    expect(listed.structured.items.map((repo: Json) => repo.name)).toEqual(['open-app']);
  });

  it('list_repositories pages through what the caller sees, capping the limit at 50', async () => {
    const all = await callTool(mcp, 'list_repositories', { limit: 500 });
    expect(all.structured.limit).toBe(50);
    const names = all.structured.items.map((repo: Json) => repo.full_name);
    expect(names).toEqual(
      expect.arrayContaining([
        `${alice.handle}/app`,
        `${alice.handle}/tools`,
        `${bob.handle}/open-app`,
      ]),
    );
    expect(names).not.toContain(`${bob.handle}/secret`);
    const first = await callTool(mcp, 'list_repositories', { owner: alice.handle, limit: 1 });
    expect(first.structured).toMatchObject({ total: 2, page: 1, limit: 1, next_page: 2 });
    const second = await callTool(mcp, 'list_repositories', {
      owner: alice.handle,
      limit: 1,
      page: 2,
    });
    expect(second.structured.items.map((repo: Json) => repo.name)).toEqual(['tools']);
    expect(second.structured.next_page).toBeNull();
    const fromRest = (await rest(`/users/${alice.handle}/repos?limit=1&page=2`)).body;
    expect(second.structured.items).toEqual(withNullUrls(fromRest, kiln.url));
  });

  it('search shows people without email and shallow repositories', async () => {
    const byName = await callTool(mcp, 'search', { query: 'app' });
    const names = byName.structured.repositories.map((repo: Json) => repo.full_name);
    expect(names).toEqual(
      expect.arrayContaining([`${alice.handle}/app`, `${bob.handle}/open-app`]),
    );
    expect(byName.structured.repositories[0]).not.toHaveProperty('clone_url');
    const hidden = await callTool(mcp, 'search', { query: 'secret' });
    expect(hidden.structured.repositories).toEqual([]);
    const people = await callTool(mcp, 'search', { query: 'bob builder' });
    expect(people.structured.users).toEqual([
      expect.objectContaining({ login: bob.handle, full_name: 'Bob Builder' }),
    ]);
    expect(people.structured.users[0]).not.toHaveProperty('email');
  });
});

describe('branches', () => {
  it('lists branches and reads one with a slash in its name, as REST does', async () => {
    const listed = await callTool(mcp, 'list_branches', { owner: alice.handle, repo: 'app' });
    expect(listed.structured.items.map((branch: Json) => branch.name)).toEqual([
      'feature/notes',
      'main',
      'other',
    ]);
    expect(listed.structured.total).toBe(3);
    const one = await callTool(mcp, 'get_branch', {
      owner: alice.handle,
      repo: 'app',
      branch: 'feature/notes',
    });
    expect(one.structured.commit.id).toBe(featureSha);
    const fromRest = (await rest(`/repos/${alice.handle}/app/branches/feature/notes`)).body;
    expect(one.structured).toEqual(withNullUrls(fromRest, kiln.url));
  });

  it('a tag is not a branch', async () => {
    const answer = await callTool(mcp, 'get_branch', {
      owner: alice.handle,
      repo: 'app',
      branch: 'v1.0.0',
    });
    expect(answer).toMatchObject({ isError: true, text: 'branch does not exist [name: v1.0.0]' });
  });
});
