/**
 * What teams give, over every surface: roles (a stranger, a member of no team, members of read,
 * write and admin teams over the repository, of a write team over all repositories, of an
 * admin team over another repository only, an owner made through the Owners team, and a former
 * admin-team member who left the organisation) × actions (read, write and administer over
 * REST; fetch and push over git; read, write and administer in pages; read and write over MCP)
 * on a private repository of the
 * organisation. Each cell is the level the role should hold: the action succeeds exactly when
 * that level is enough, and a role that may not see the repository gets the answer a missing
 * one gets. MCP, which no HTTP route serves, is asked the same through its tools.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AccessLevel } from '../../src/domain/repos/repo.types.ts';
import { atLeast } from '../../src/domain/repos/repo.types.ts';
import { ALL_SCOPES } from '../../src/domain/tokens/token-scopes.ts';
import { buildMcpServer } from '../../src/mcp/mcp-server.ts';
import { signIn } from '../replicas/support.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { Browser } from '../support/http.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';

const ROLES = {
  stranger: 'none',
  member: 'read',
  teamRead: 'read',
  teamWrite: 'write',
  teamAdmin: 'admin',
  allWrite: 'write',
  elsewhere: 'read',
  owner: 'admin',
  leaver: 'none',
} as const satisfies Record<string, AccessLevel>;
type Role = keyof typeof ROLES;
const ROLE_NAMES = Object.keys(ROLES) as Role[];

let kiln: TestServer;
let git: GitClient;
let boss: Person;
let people: Record<Role, Person>;
const browsers = new Map<Role, Browser>();
const ORG = 'guild';
const REPO = 'vault';
let serial = 0;

useWorld({ people: ['boss', ...ROLE_NAMES], timeoutMs: 60_000 }, async (world) => {
  ({ kiln, git } = world);
  const { boss: head, ...rest } = world.people;
  boss = head;
  people = rest;
  const { orgs, repos, teams } = kiln.app.services;
  await orgs.createOrg({ name: ORG, owner: boss.user });
  await repos.create(boss.user, { name: REPO, orgName: ORG, private: true, autoInit: true });
  await repos.create(boss.user, { name: 'other', orgName: ORG, private: true });
  await orgs.addMemberByHandle(boss.user, ORG, people.member.user.handle, 'member');
  const team = async (
    name: string,
    permission: 'read' | 'write' | 'admin',
    role: Role,
    repo: string | undefined,
  ) => {
    const made = await teams.create(boss.user, ORG, {
      name,
      description: '',
      permission,
      includesAllRepositories: repo === undefined,
      canCreateOrgRepo: false,
    });
    if (repo) await teams.addRepo(made, ORG, repo);
    await teams.addMember(made, people[role].user.handle);
  };
  await team('readers', 'read', 'teamRead', REPO);
  await team('writers', 'write', 'teamWrite', REPO);
  await team('admins', 'admin', 'teamAdmin', REPO);
  await team('everything', 'write', 'allWrite', undefined);
  await team('elsewhere', 'admin', 'elsewhere', 'other');
  await team('leaving', 'admin', 'leaver', REPO);
  await orgs.removeMember(boss.user, ORG, people.leaver.user.handle);
  const owners = await teams.byName(boss.user, ORG, 'Owners');
  await teams.addMember(owners, people.owner.user.handle);
  for (const role of ROLE_NAMES) {
    browsers.set(role, await signIn(kiln.url, people[role].user.handle, people[role].password));
  }
});

type Outcome = 'done' | 'refused' | 'hidden';
type Action = { readonly need: AccessLevel; readonly run: (role: Role) => Promise<Outcome> };

/** A REST answer as an outcome: 404 is the answer for what the caller may not see. */
const fromStatus = (status: number, ok: number): Outcome => {
  if (status === ok) return 'done';
  if (status === 404) return 'hidden';
  if (status === 403) return 'refused';
  throw new Error(`unexpected status ${status}`);
};
const rest =
  (path: string, ok: number, method = 'GET', body?: () => Record<string, unknown>) =>
  async (role: Role): Promise<Outcome> => {
    const answer = await apiCall(kiln.url, `/repos/${ORG}/${REPO}${path}`, {
      method,
      token: people[role].token,
      ...(body ? { body: body() } : {}),
    });
    return fromStatus(answer.status, ok);
  };
const page =
  (path: string) =>
  async (role: Role): Promise<Outcome> => {
    const response = await browsers.get(role)?.get(`/repos/${ORG}/${REPO}${path}`);
    await response?.arrayBuffer();
    return fromStatus(response?.status ?? 0, 200);
  };
const url = (role: Role) =>
  repoUrl(kiln.url, ORG, REPO, { token: people[role].token, as: 'password' });
/** git over HTTP hides a private repository behind the same refusal whatever the cause. */
/** What git printed for each refusal in the current test, to say why a cell differs. */
const gitSaid: string[] = [];
const gitOutcome = (code: number, stderr: string): Outcome => {
  if (code === 0) return 'done';
  gitSaid.push(stderr.trim());
  // Whole phrases: git's lines quote the URL, whose port may hold any digits (a bare `404` once
  // matched port 40412 and read every refusal as hidden).
  return /not found|returned error: 404\b|Authentication failed/i.test(stderr)
    ? 'hidden'
    : 'refused';
};

/** An MCP tool called as the role, in memory: done, or refused as missing or as not allowed. */
const mcp = (tool: string, args: () => Record<string, unknown>) => async (role: Role) => {
  const server = buildMcpServer(
    kiln.app,
    async () => ({ user: people[role].user, scopes: ALL_SCOPES }),
    pino({ level: 'silent' }),
    new Set(),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'teams', version: '1' });
  await client.connect(clientSide);
  try {
    const result = await client.callTool({
      name: tool,
      arguments: { owner: ORG, repo: REPO, ...args() },
    });
    if (result.isError !== true) return 'done';
    const text = (result.content as { text?: string }[])[0]?.text ?? '';
    return /does not exist|not found/i.test(text) ? 'hidden' : 'refused';
  } finally {
    await client.close();
  }
};

const ACTIONS: Record<string, Action> = {
  'REST read the repository': { need: 'read', run: rest('', 200) },
  'REST publish a release': {
    need: 'write',
    run: rest('/releases', 201, 'POST', () => ({
      tag_name: `v${serial++}`,
      target_commitish: 'main',
    })),
  },
  'REST list the hooks': { need: 'admin', run: rest('/hooks', 200) },
  'git fetch': {
    need: 'read',
    run: async (role) => {
      const result = await git.run(['ls-remote', url(role)]);
      return gitOutcome(result.code ?? -1, result.stderr);
    },
  },
  'git push a branch': {
    need: 'write',
    run: async (role) => {
      const dir = await git.init();
      await git.commit(dir, { 'f.txt': `${role}\n` });
      const result = await git.run(['push', url(role), `HEAD:refs/heads/push-${serial++}`], {
        cwd: dir,
      });
      return gitOutcome(result.code ?? -1, result.stderr);
    },
  },
  'page: the repository': { need: 'read', run: page('') },
  'page: new release': { need: 'write', run: page('/releases/new') },
  'page: settings': { need: 'admin', run: page('/settings') },
  'MCP get the repository': { need: 'read', run: mcp('get_repository', () => ({})) },
  'MCP create a release': {
    need: 'write',
    run: mcp('create_release', () => ({ tag_name: `m${serial++}`, target_commitish: 'main' })),
  },
};

describe('teams: roles × actions', () => {
  for (const [name, action] of Object.entries(ACTIONS)) {
    it(name, async () => {
      const got: Record<string, Outcome> = {};
      const want: Record<string, Outcome> = {};
      gitSaid.length = 0;
      for (const role of ROLE_NAMES) {
        const level = ROLES[role];
        got[role] = await action.run(role);
        if (atLeast(level, action.need)) want[role] = 'done';
        else want[role] = level === 'none' ? 'hidden' : 'refused';
      }
      expect(got, gitSaid.join('\n---\n')).toEqual(want);
    });
  }

  it('reports each role’s level as the collaborator permission endpoint', async () => {
    for (const role of ROLE_NAMES) {
      const answer = await apiCall(
        kiln.url,
        `/repos/${ORG}/${REPO}/collaborators/${people[role].user.handle}/permission`,
        { token: boss.token },
      );
      expect(answer.body?.permission, role).toBe(ROLES[role] === 'none' ? 'none' : ROLES[role]);
    }
  });
});
