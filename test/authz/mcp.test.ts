/**
 * The authorization matrix for the MCP tools: every registered tool × the six principals that
 * can hold a token (MCP has no anonymous caller) × public and private repositories. Allowed
 * calls succeed; refused ones answer an error; on a private repository the error is exactly the
 * one a missing repository gets. A tool registered without an entry here fails the suite.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/domain/tokens/token-scopes.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { buildMcpServer } from '../../src/mcp/mcp-server.ts';
import type { TestServer } from '../support/server.ts';
import {
  levelOf,
  makeSubject,
  type People,
  PRINCIPALS,
  type Principal,
  type Subject,
  type Subjects,
  subjectOf,
  useAuthzWorld,
  type Visibility,
} from './world.ts';

type Need = 'user' | 'read' | 'user+read' | 'write';
type Tool = {
  readonly args: (s: Subject, unique: (p: string) => string) => Record<string, unknown>;
  readonly need: Need;
  /** Success changes the subject: allowed principals get a fresh one. */
  readonly fresh?: boolean;
  /** The call names the subject repository, so its privacy rules apply. */
  readonly scoped?: boolean;
  /** Arguments made by an earlier call of the same principal (a pending review to submit). */
  readonly prepare?: (
    call: (name: string, args: Record<string, unknown>) => Promise<{ structured: unknown }>,
    s: Subject,
  ) => Promise<Record<string, unknown>>;
};

const at = (s: Subject) => ({ owner: s.owner, repo: s.name });
const TOOLS: Record<string, Tool> = {
  whoami: { args: () => ({}), need: 'user', scoped: false },
  list_repositories: { args: () => ({}), need: 'user', scoped: false },
  search: { args: () => ({ query: 'o' }), need: 'user', scoped: false },
  get_repository: { args: at, need: 'read' },
  list_branches: { args: at, need: 'read' },
  get_branch: { args: (s) => ({ ...at(s), branch: 'main' }), need: 'read' },
  list_pull_requests: { args: at, need: 'read' },
  get_pull_request: { args: (s) => ({ ...at(s), number: s.pull }), need: 'read' },
  create_pull_request: {
    args: (s) => ({ ...at(s), head: 'feature', base: 'main', title: 'from mcp' }),
    need: 'user+read',
    fresh: true,
  },
  update_pull_request: {
    args: (s) => ({ ...at(s), number: s.pull, body: 'edited' }),
    need: 'write',
  },
  merge_pull_request: { args: (s) => ({ ...at(s), number: s.pull }), need: 'write', fresh: true },
  list_releases: { args: at, need: 'read' },
  get_release: { args: (s) => ({ ...at(s), tag: 'v1' }), need: 'read' },
  get_latest_release: { args: at, need: 'read' },
  create_release: {
    args: (s, unique) => ({ ...at(s), tag_name: unique('mcp'), target_commitish: 'main' }),
    need: 'write',
  },
  list_workflow_runs: { args: at, need: 'read' },
  get_workflow_run: { args: (s) => ({ ...at(s), run: s.runs.failed }), need: 'read' },
  get_job_log_tail: { args: (s) => ({ ...at(s), job: s.runs.failedJob }), need: 'read' },
  rerun_workflow_run: {
    args: (s) => ({ ...at(s), run: s.runs.failed, failed_only: true }),
    need: 'write',
    fresh: true,
  },
  cancel_workflow_run: {
    args: (s) => ({ ...at(s), run: s.runs.running }),
    need: 'write',
    fresh: true,
  },
  list_review_comments: { args: (s) => ({ ...at(s), number: s.pull }), need: 'read' },
  create_review_comment: {
    args: (s) => ({ ...at(s), number: s.pull, body: 'from mcp', path: 'b.txt', line: 1 }),
    need: 'user+read',
  },
  list_reviews: { args: (s) => ({ ...at(s), number: s.pull }), need: 'read' },
  create_review: {
    args: (s) => ({ ...at(s), number: s.pull, event: 'COMMENT', body: 'from mcp' }),
    need: 'user+read',
  },
  submit_review: {
    args: (s) => ({ ...at(s), number: s.pull, event: 'COMMENT', body: 'submitted', id: 1 }),
    need: 'user+read',
    prepare: async (call, s) => {
      const pending = await call('create_review', { ...at(s), number: s.pull, body: 'later' });
      const id = (pending.structured as { id?: number } | undefined)?.id;
      return id === undefined ? {} : { id };
    },
  },
};

const ADMIN = 'mcpadmin';
let kiln: TestServer;
let people: People;
let shared: Subjects;
let serial = 0;

useAuthzWorld({ SERVICE_SECRET_KEY: 'mcp matrix key 0' }, ADMIN, (server, principals, subjects) => {
  [kiln, people, shared] = [server, principals, subjects];
});

/** An MCP client talking, in memory, to Kiln's MCP server acting as `user`. */
async function connect(user: User): Promise<Client> {
  const server = buildMcpServer(
    kiln.app,
    async () => ({ user, scopes: ALL_SCOPES }),
    pino({ level: 'silent' }),
    new Set(),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'matrix', version: '1' });
  await client.connect(clientSide);
  return client;
}

function allowed(need: Need, principal: Principal, visibility: Visibility): boolean {
  const level = levelOf(principal, visibility);
  if (need === 'user') return true;
  if (need === 'write') return level === 'write' || level === 'admin';
  return level !== 'none';
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text?: string }[])[0]?.text ?? '';
  return { failed: result.isError === true, text, structured: result.structuredContent };
}

describe('MCP tools authorization', () => {
  it('has an entry for every registered tool', async () => {
    const client = await connect(people.owner.user);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).filter((name) => !(name in TOOLS))).toEqual([]);
    await client.close();
  });

  for (const [name, tool] of Object.entries(TOOLS)) {
    it(name, async () => {
      const failures: string[] = [];
      for (const principal of PRINCIPALS.filter((p) => p !== 'anonymous')) {
        const person = people[principal as Exclude<Principal, 'anonymous'>];
        const client = await connect(person.user);
        for (const visibility of ['public', 'private'] as const) {
          const inOrg = principal === 'orgOwner';
          const may = allowed(tool.need, principal, visibility);
          const subject =
            may && tool.fresh
              ? await makeSubject(kiln, people, visibility, inOrg)
              : subjectOf(shared, visibility, inOrg);
          const unique = (prefix: string) => `${prefix}${serial++}`;
          const prepared = tool.prepare
            ? await tool.prepare((n, a) => call(client, n, a), subject)
            : {};
          const result = await call(client, name, { ...tool.args(subject, unique), ...prepared });
          const cell = `${name} as ${principal} on ${visibility}`;
          if (may) {
            if (result.failed) failures.push(`${cell}: failed with "${result.text}"`);
            continue;
          }
          if (!result.failed) failures.push(`${cell}: succeeded`);
          if (tool.scoped !== false && levelOf(principal, visibility) === 'none') {
            const ghost = await call(
              client,
              name,
              tool.args({ ...subject, name: `ghost${subject.name}` }, unique),
            );
            const same = ghost.text.replace(`ghost${subject.name}`, subject.name);
            if (result.text !== same)
              failures.push(
                `${cell}: "${result.text}" but a missing repository gets "${ghost.text}"`,
              );
          }
        }
        await client.close();
      }
      expect(failures).toEqual([]);
    }, 120_000);
  }

  it('lists and search show private repositories to those who may read them only', async () => {
    for (const principal of PRINCIPALS.filter((p) => p !== 'anonymous')) {
      const client = await connect(people[principal as Exclude<Principal, 'anonymous'>].user);
      for (const [tool, args] of [
        ['list_repositories', { limit: 50 }],
        ['search', { query: 'private' }],
      ] as const) {
        const { text } = await call(client, tool, args);
        for (const inOrg of [false, true]) {
          const subject = subjectOf(shared, 'private', inOrg);
          const reads =
            principal === 'owner'
              ? !inOrg
              : principal === 'orgOwner'
                ? inOrg
                : levelOf(principal, 'private') !== 'none';
          if (!reads) expect(text, `${tool} as ${principal}`).not.toContain(subject.name);
        }
      }
      await client.close();
    }
  });
});
