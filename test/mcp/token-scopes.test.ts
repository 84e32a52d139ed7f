/**
 * MCP tools obey the token's scopes by the REST rule: tools that only read need the read level
 * of their category (repository; whoami: user), tools that add or change need write; a refusal
 * is a tool error naming the missing scope, and nothing changes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScopes } from '../../src/domain/tokens/token-scopes.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { buildMcpServer } from '../../src/mcp/mcp-server.ts';
import { makeRepo } from '../git/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let owner: User;
let repo: { owner: string; name: string };
beforeAll(async () => {
  kiln = await startTestServer();
  ({ user: owner } = await kiln.make.user());
  repo = await makeRepo(kiln, owner, { autoInit: true });
});
afterAll(async () => {
  await kiln?.close();
});

async function connect(scopes: string): Promise<Client> {
  const holder = { user: owner, scopes: parseScopes(scopes) };
  const server = buildMcpServer(kiln.app, async () => holder, pino({ level: 'silent' }), new Set());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'scopes', version: '1' });
  await client.connect(clientSide);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text?: string }[])[0]?.text ?? '';
  return { failed: result.isError === true, text };
}

describe('MCP tools with a scoped token', () => {
  it('read with read:repository, but neither write nor read the user', async () => {
    const client = await connect('read:repository');
    const read = await call(client, 'get_repository', { owner: repo.owner, repo: repo.name });
    expect(read.failed).toBe(false);
    const release = await call(client, 'create_release', {
      owner: repo.owner,
      repo: repo.name,
      tag_name: 'v1',
    });
    expect(release).toEqual({
      failed: true,
      text: 'token does not have at least one of required scope(s): [write:repository]',
    });
    const page = { limit: 10, offset: 0 };
    const { total } = await kiln.app.services.releases.list(owner, repo.owner, repo.name, page);
    expect(total).toBe(0);
    const whoami = await call(client, 'whoami', {});
    expect(whoami).toEqual({
      failed: true,
      text: 'token does not have at least one of required scope(s): [read:user]',
    });
    await client.close();
  });

  it('write with write:repository', async () => {
    const client = await connect('write:repository,read:user');
    expect((await call(client, 'whoami', {})).failed).toBe(false);
    const release = await call(client, 'create_release', {
      owner: repo.owner,
      repo: repo.name,
      tag_name: 'v2',
    });
    expect(release.failed).toBe(false);
    await client.close();
  });
});
