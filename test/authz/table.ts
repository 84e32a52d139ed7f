/**
 * The authorization matrix's table: for every registered route (as `registeredRoutes` names it),
 * the requests that exercise it and who may make them. A route added without an entry here
 * fails the matrix. Wildcard routes that Fastify prints as one node get one probe per route
 * behind them.
 */
import { sql } from 'kysely';
import type { App } from '../../src/app.ts';
import { GITEA_REPO_SECTIONS } from '../../src/http/web/pages/gitea-paths.routes.ts';
import type { Principal, Subject } from './world.ts';

/**
 * Who may: `anyone`; any signed-in `user`; repository access `read`, `write`, `admin`; `user+read`
 * (signed in and able to read); `org-admin` (the organisation's owner or a site admin);
 * `site-admin`; `owner-only` (the person whose own thing it is); `self-or-admin` (that person or
 * a site admin).
 */
export type Need =
  | 'anyone'
  | 'user'
  | 'read'
  | 'user+read'
  | 'write'
  | 'admin'
  | 'org-admin'
  | 'site-admin'
  | 'owner-only'
  | 'self-or-admin';

export type Surface = 'api' | 'git' | 'page' | 'form';

/** What a probe gets to build its request from. */
export type ProbeContext = {
  readonly subject: Subject;
  readonly principal: Principal;
  readonly org: string;
  readonly ownerHandle: string;
  readonly otherHandle: string;
  readonly writerHandle: string;
  readonly readerHandle: string;
  /** The site admin's own handle: admin forms act on it so other principals stay as they are. */
  readonly adminHandle: string;
  /** An id of one of `owner`'s own access tokens. */
  readonly ownerTokenId: string;
  /** An instance runner token and a runner, for the admin pages. */
  readonly instanceTokenId: string;
  readonly instanceRunnerId: string;
  unique(prefix: string): string;
};

export type Probe = {
  readonly surface: Surface;
  readonly method: string;
  readonly path: (c: ProbeContext) => string;
  readonly body?: (c: ProbeContext) => Record<string, unknown>;
  readonly need: Need;
  /** Statuses that mean "done" for this probe. */
  readonly ok: readonly number[];
  /** Success changes the subject for good: each allowed principal gets a fresh subject. */
  readonly fresh?: boolean;
  /** The request names the subject repository, so its privacy rules apply. */
  readonly scoped: boolean;
  /**
   * Reads the state the request is meant to change, before and after it: allowed principals must
   * change it, refused ones must not. For forms that answer a refusal with a redirect and a
   * message, as they answer success.
   */
  readonly measure?: (c: ProbeContext, app: App) => Promise<string>;
};

/** Rows about the subject repository, as text. */
function rowsOf(query: (repoId: string) => ReturnType<typeof sql>) {
  return async (c: ProbeContext, app: App): Promise<string> => {
    const repo = await app.database.db
      .selectFrom('repositories')
      .innerJoin('users', 'users.id', 'repositories.owner_id')
      .select('repositories.id')
      .where('users.handle', '=', c.subject.owner)
      .where('repositories.name', '=', c.subject.name)
      .executeTakeFirst();
    if (!repo) return 'gone';
    const { rows } = await query(repo.id).execute(app.database.db);
    return JSON.stringify(rows);
  };
}

const pullState = (c: ProbeContext, app: App) =>
  rowsOf(
    (id) =>
      sql`select state, merged from pull_requests where repo_id = ${id} and number = ${c.subject.pull}`,
  )(c, app);
const countOf = (
  table: 'pull_requests' | 'review_comments' | 'ci_secrets' | 'ci_variables' | 'releases',
) => rowsOf((id) => sql`select count(*) as n from ${sql.table(table)} where repo_id = ${id}`);

const commentRows = rowsOf(
  (id) =>
    sql`select body, resolved_by_id from review_comments where repo_id = ${id} order by created_at, id`,
);
const hookUrls = rowsOf((id) => sql`select url from webhooks where owner_id = ${id} order by id`);
const deliveryCount = rowsOf(
  (id) =>
    sql`select count(*) as n from webhook_deliveries d join webhooks h on h.id = d.hook_id where h.owner_id = ${id}`,
);

export type Entry = { readonly probes: readonly Probe[] } | { readonly skip: string };

/** The hooks of organisations or the system hooks, as text. */
const hooksOfKind = (kind: 'org' | 'system') => async (_c: ProbeContext, app: App) => {
  const { rows } =
    await sql`select url from webhooks where owner_kind = ${kind} order by id`.execute(
      app.database.db,
    );
  return JSON.stringify(rows);
};
/** An organisation's or a system hook is addressed by an id only its creator learns. */
const scopedHookPage: Entry = {
  skip: 'hook ids: the list and form probes check who may; test/web/webhook-scope-pages.test.ts each id page',
};

const repo = (c: ProbeContext) => `${c.subject.owner}/${c.subject.name}`;
const api = (
  method: string,
  path: (c: ProbeContext) => string,
  need: Need,
  ok: number[],
  extra: Partial<Probe> = {},
): Probe => ({ surface: 'api', method, path, need, ok, scoped: true, ...extra });
const r = (tail: string) => (c: ProbeContext) => `/api/v1/repos/${repo(c)}${tail}`;
const page = (path: (c: ProbeContext) => string, need: Need, scoped = true): Probe => ({
  surface: 'page',
  method: 'GET',
  path,
  need,
  ok: [200],
  scoped,
});
const w = (tail: string) => (c: ProbeContext) => `/repos/${repo(c)}${tail}`;
const form = (
  path: (c: ProbeContext) => string,
  need: Need,
  body: (c: ProbeContext) => Record<string, unknown>,
  extra: Partial<Probe> = {},
): Probe => ({
  surface: 'form',
  method: 'POST',
  path,
  body,
  need,
  ok: [303],
  scoped: true,
  ...extra,
});
const anyoneProbe = (path: string, ok = [200]): Probe => ({
  surface: 'page',
  method: 'GET',
  path: () => path,
  need: 'anyone',
  ok,
  scoped: false,
});
const anyone = (path: string, ok = [200]): Entry => ({ probes: [anyoneProbe(path, ok)] });
const actions = { skip: 'runner protocol: runners authenticate, not people (test/actions)' };
const artifactProtocol = {
  skip: 'artifact protocols: running tasks and signed links, not people (test/artifacts)',
};
const cacheProtocol = {
  skip: 'cache protocol: running tasks and signed links, not people (test/actions/cache-client.test.ts)',
};

const hookBody = {
  type: 'gitea',
  config: { url: 'https://hooks.example/x', content_type: 'json' },
};
/** Federation's routes answer 404 to all here (no base URL); test/federation covers them. */
const federationPages: Entry = {
  skip: 'federation is off in this world; see test/federation (following-pages, following-api, admin-page)',
};
/** A hook is addressed by an id only its creator learns; the same level's list and create
 * probes above check who may reach it, and test/webhooks/webhook-api.test.ts each id route. */
const hookById: Entry = { skip: 'hook ids: see test/webhooks/webhook-api.test.ts' };
/** A team is addressed by an id only its organisation's members learn; roles × actions on
 * teams are in test/authz/teams.test.ts, who may change a team in test/api/teams-api.test.ts. */
/** A Gitea address of a repository's section: a redirect for those who may read it. */
const giteaSection = (tail: string): Entry => ({
  probes: [{ ...page((c) => `/${repo(c)}/${tail}`, 'read'), ok: [302] }],
});
/** A path below a section (Fastify prints its wildcard route as `section*`). */
const tailOf = (section: string) =>
  section === 'compare' ? 'compare/main...feature' : `${section}/x`;
const teamById: Entry = { skip: 'team ids: see test/api/teams-api.test.ts' };
/** Team forms that would change who the principals are; the edit probe checks who may post. */
const teamForms: Entry = { skip: 'team membership forms: see test/web/team-pages.test.ts' };

/**
 * An organisation's CI settings: owners only. A setting that does not exist answers 404 to an
 * owner, so refused principals are told apart by their 403/404 before any lookup.
 */
const orgOwners = (
  method: string,
  tail: string,
  ok: number[],
  body?: Record<string, unknown>,
): Entry => ({
  probes: [
    api(method, (c) => `/api/v1/orgs/${c.org}/actions/${tail}`, 'org-admin', ok, {
      scoped: false,
      ...(body === undefined ? {} : { body: () => body }),
    }),
  ],
});

/** A key is addressed by an id only its owner learns; test/ssh/ssh-keys-api.test.ts covers each. */
const keyById: Entry = { skip: 'key ids and key texts: see test/ssh/ssh-keys-api.test.ts' };
/** A review is addressed by an id only its pull's readers learn; test/pulls/reviews.test.ts. */
const reviewById: Entry = { skip: 'review ids: see test/pulls/reviews.test.ts' };
/** Git LFS: owner, reader, outsider and anonymous on public and private repositories. */
const lfs: Entry = { skip: 'Git LFS: see the access matrix of test/lfs/lfs-access.test.ts' };
/** Forks of remote repositories need a second server: test/federation/remote-forks.test.ts. */
const remoteForks: Entry = { skip: 'remote forks: see test/federation/remote-forks.test.ts' };
/** Pull requests proposed to another server need one too: test/federation/remote-pulls.test.ts. */
const remotePulls: Entry = { skip: 'remote pulls: see test/federation/remote-pulls.test.ts' };
/** Blocks of remote actors and servers answer only with federation on: blocks.test.ts. */
const federationBlocks: Entry = {
  skip: 'federation is off in this world; see test/federation/blocks.test.ts',
};

export const TABLE: Record<string, Entry> = {
  'GET /': anyone('/'),
  'GET /api/v1/users/:username/keys': {
    probes: [
      api('GET', (c) => `/api/v1/users/${c.ownerHandle}/keys`, 'anyone', [200], { scoped: false }),
    ],
  },
  'GET /api/v1/user/keys': {
    probes: [api('GET', () => '/api/v1/user/keys', 'user', [200], { scoped: false })],
  },
  'POST /api/v1/user/keys': keyById,
  'GET /api/v1/user/keys/:id': keyById,
  'DELETE /api/v1/user/keys/:id': keyById,
  'POST /api/v1/admin/users/:username/keys': keyById,
  'DELETE /api/v1/admin/users/:username/keys/:id': keyById,
  'GET /api/v1/repos/:owner/:name/keys': keyById,
  'POST /api/v1/repos/:owner/:name/keys': keyById,
  'GET /api/v1/repos/:owner/:name/keys/:id': keyById,
  'DELETE /api/v1/repos/:owner/:name/keys/:id': keyById,
  'POST /api/v1/user/federation/forks': remoteForks,
  'GET /api/v1/repos/:owner/:name/federation/upstream': remoteForks,
  'GET /api/v1/repos/:owner/:name/federation/forks': remoteForks,
  'POST /api/v1/repos/:owner/:name/merge-upstream': remoteForks,
  'POST /api/v1/repos/:owner/:name/federation/pulls': remotePulls,
  'GET /api/v1/repos/:owner/:name/federation/pulls': remotePulls,
  'GET /api/v1/repos/:owner/:name/federation/pulls/:id/comments': {
    skip: 'remote pull comments: see test/federation/remote-pull-updates.test.ts',
  },
  'GET /api/v1/admin/federation/blocks': federationBlocks,
  'POST /api/v1/admin/federation/blocks': federationBlocks,
  'DELETE /api/v1/admin/federation/blocks': federationBlocks,
  'GET /api/v1/repos/:owner/:name/federation/blocks': federationBlocks,
  'POST /api/v1/repos/:owner/:name/federation/blocks': federationBlocks,
  'DELETE /api/v1/repos/:owner/:name/federation/blocks': federationBlocks,
  'GET /api/v1/repos/:owner/:name/pulls/:number/reviews': {
    probes: [api('GET', (c) => r(`/pulls/${c.subject.pull}/reviews`)(c), 'read', [200])],
  },
  'POST /api/v1/repos/:owner/:name/pulls/:number/reviews': reviewById,
  'GET /api/v1/repos/:owner/:name/pulls/:number/reviews/:id': reviewById,
  'POST /api/v1/repos/:owner/:name/pulls/:number/reviews/:id': reviewById,
  'DELETE /api/v1/repos/:owner/:name/pulls/:number/reviews/:id': reviewById,
  'GET /api/v1/repos/:owner/:name/pulls/:number/reviews/:id/comments': reviewById,
  'POST /api/v1/repos/:owner/:name/pulls/:number/reviews/:id/dismissals': reviewById,
  'GET /healthz': anyone('/healthz'),
  'GET /metrics': anyone('/metrics'),
  'GET /api/swagger': anyone('/api/swagger', [200, 302]),
  'GET /api/swagger/': anyone('/api/swagger/', [200, 302]),
  // One route serves the whole documentation UI (built on first use, see docs.ts).
  'GET /api/swagger/*': {
    probes: [
      anyoneProbe('/api/swagger/static/index.html', [200, 302]),
      anyoneProbe('/api/swagger/static/swagger-initializer.js'),
      anyoneProbe('/api/swagger/json'),
      anyoneProbe('/api/swagger/yaml'),
    ],
  },
  'GET /api/v1/swagger.json': anyone('/api/v1/swagger.json'),
  'GET /api/v1/version': anyone('/api/v1/version'),
  'GET /api/v1/user': {
    probes: [api('GET', () => '/api/v1/user', 'user', [200], { scoped: false })],
  },
  'GET /api/v1/users/:username': {
    probes: [
      api('GET', (c) => `/api/v1/users/${c.ownerHandle}`, 'anyone', [200], { scoped: false }),
    ],
  },
  'GET /api/v1/users/:username/repos': {
    probes: [
      api('GET', (c) => `/api/v1/users/${c.ownerHandle}/repos`, 'anyone', [200], { scoped: false }),
    ],
  },
  'GET /api/v1/users/:username/tokens': {
    probes: [
      api('GET', (c) => `/api/v1/users/${c.ownerHandle}/tokens`, 'self-or-admin', [200], {
        scoped: false,
      }),
    ],
  },
  'POST /api/v1/users/:username/tokens': {
    skip: 'takes the account password, which only the person has (test/api/token-api.test.ts)',
  },
  'DELETE /api/v1/users/:username/tokens/:token': {
    skip: 'would revoke the token the probes sign in with (test/api/token-api.test.ts)',
  },
  'GET /api/v1/user/federation/following': federationPages,
  'POST /api/v1/user/federation/following': federationPages,
  'DELETE /api/v1/user/federation/following': federationPages,
  'GET /api/v1/user/federation/starred': federationPages,
  'POST /api/v1/user/federation/starred': federationPages,
  'DELETE /api/v1/user/federation/starred': federationPages,
  'GET /api/v1/user/repos': {
    probes: [api('GET', () => '/api/v1/user/repos', 'user', [200], { scoped: false })],
  },
  'POST /api/v1/user/repos': {
    probes: [
      api('POST', () => '/api/v1/user/repos', 'user', [201], {
        scoped: false,
        body: (c) => ({ name: c.unique('made') }),
      }),
    ],
  },
  'GET /api/v1/repos': anyone('/api/v1/repos'),
  'GET /api/v1/repos/search': anyone('/api/v1/repos/search?q=o'),
  'GET /api/v1/orgs/:org/repos': {
    probes: [api('GET', (c) => `/api/v1/orgs/${c.org}/repos`, 'anyone', [200], { scoped: false })],
  },
  'POST /api/v1/orgs/:org/repos': {
    probes: [
      api('POST', (c) => `/api/v1/orgs/${c.org}/repos`, 'org-admin', [201], {
        scoped: false,
        body: (c) => ({ name: c.unique('orgmade') }),
      }),
    ],
  },
  'POST /api/v1/orgs': {
    probes: [
      api('POST', () => '/api/v1/orgs', 'user', [201], {
        scoped: false,
        body: (c) => ({ username: c.unique('apiorg') }),
      }),
    ],
  },
  'GET /api/v1/orgs/:org/teams': {
    probes: [
      api('GET', (c) => `/api/v1/orgs/${c.org}/teams`, 'org-admin', [200], { scoped: false }),
    ],
  },
  'POST /api/v1/orgs/:org/teams': {
    probes: [
      api('POST', (c) => `/api/v1/orgs/${c.org}/teams`, 'org-admin', [201], {
        scoped: false,
        body: (c) => ({ name: c.unique('team') }),
      }),
    ],
  },
  'GET /api/v1/user/teams': {
    probes: [api('GET', () => '/api/v1/user/teams', 'user', [200], { scoped: false })],
  },
  'GET /api/v1/teams/:id': teamById,
  'PATCH /api/v1/teams/:id': teamById,
  'DELETE /api/v1/teams/:id': teamById,
  'GET /api/v1/teams/:id/members': teamById,
  'PUT /api/v1/teams/:id/members/:username': teamById,
  'DELETE /api/v1/teams/:id/members/:username': teamById,
  'GET /api/v1/teams/:id/repos': { skip: 'team ids: see test/authz/team-repos.test.ts' },
  'GET /api/v1/teams/:id/repos/:org/:repo': { skip: 'team ids: see test/authz/team-repos.test.ts' },
  'PUT /api/v1/teams/:id/repos/:org/:repo': teamById,
  'DELETE /api/v1/teams/:id/repos/:org/:repo': teamById,
  'GET /api/v1/repos/:owner/:name': { probes: [api('GET', r(''), 'read', [200])] },
  'PATCH /api/v1/repos/:owner/:name': {
    probes: [api('PATCH', r(''), 'admin', [200], { body: () => ({ description: 'changed' }) })],
  },
  'DELETE /api/v1/repos/:owner/:name': {
    probes: [api('DELETE', r(''), 'admin', [204], { fresh: true })],
  },
  'GET /api/v1/repos/:owner/:name/forks': { probes: [api('GET', r('/forks'), 'read', [200])] },
  'POST /api/v1/repos/:owner/:name/forks': {
    probes: [
      api('POST', r('/forks'), 'user+read', [202], {
        body: (c) => ({ name: c.unique('fork') }),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/collaborators': {
    probes: [api('GET', r('/collaborators'), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name/collaborators/:collaborator': {
    probes: [api('GET', (c) => r(`/collaborators/${c.writerHandle}`)(c), 'read', [204])],
  },
  'PUT /api/v1/repos/:owner/:name/collaborators/:collaborator': {
    probes: [
      api('PUT', (c) => r(`/collaborators/${c.otherHandle}`)(c), 'admin', [204], {
        // Success makes the stranger a collaborator: never on the shared subjects.
        fresh: true,
        body: () => ({ permission: 'read' }),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/hooks': { probes: [api('GET', r('/hooks'), 'admin', [200])] },
  'POST /api/v1/repos/:owner/:name/hooks': {
    probes: [
      api('POST', r('/hooks'), 'admin', [201], {
        body: () => hookBody,
        measure: rowsOf((id) => sql`select count(*) as n from webhooks where owner_id = ${id}`),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/hooks/:id': hookById,
  'PATCH /api/v1/repos/:owner/:name/hooks/:id': hookById,
  'DELETE /api/v1/repos/:owner/:name/hooks/:id': hookById,
  'POST /api/v1/repos/:owner/:name/hooks/:id/tests': hookById,
  'GET /api/v1/orgs/:org/hooks': {
    probes: [
      api('GET', (c) => `/api/v1/orgs/${c.org}/hooks`, 'org-admin', [200], { scoped: false }),
    ],
  },
  'POST /api/v1/orgs/:org/hooks': {
    probes: [
      api('POST', (c) => `/api/v1/orgs/${c.org}/hooks`, 'org-admin', [201], {
        scoped: false,
        body: () => hookBody,
      }),
    ],
  },
  'GET /api/v1/orgs/:org/hooks/:id': hookById,
  'PATCH /api/v1/orgs/:org/hooks/:id': hookById,
  'DELETE /api/v1/orgs/:org/hooks/:id': hookById,
  'GET /api/v1/orgs/:org/actions/secrets': orgOwners('GET', 'secrets', [200]),
  'PUT /api/v1/orgs/:org/actions/secrets/:secretname': orgOwners(
    'PUT',
    'secrets/PROBE',
    [201, 204],
    {
      data: 'probe',
    },
  ),
  'DELETE /api/v1/orgs/:org/actions/secrets/:secretname': orgOwners(
    'DELETE',
    'secrets/NONE',
    [404],
  ),
  'GET /api/v1/orgs/:org/actions/variables': orgOwners('GET', 'variables', [200]),
  'GET /api/v1/orgs/:org/actions/variables/:variablename': orgOwners(
    'GET',
    'variables/NONE',
    [404],
  ),
  'POST /api/v1/orgs/:org/actions/variables/:variablename': orgOwners(
    'POST',
    'variables/PROBE',
    [201, 409],
    { value: 'probe' },
  ),
  'PUT /api/v1/orgs/:org/actions/variables/:variablename': orgOwners(
    'PUT',
    'variables/NONE',
    [404],
    { value: 'probe' },
  ),
  'DELETE /api/v1/orgs/:org/actions/variables/:variablename': orgOwners(
    'DELETE',
    'variables/NONE',
    [404],
  ),
  'GET /api/v1/admin/hooks': {
    probes: [api('GET', () => '/api/v1/admin/hooks', 'site-admin', [200], { scoped: false })],
  },
  'POST /api/v1/admin/hooks': {
    probes: [
      api('POST', () => '/api/v1/admin/hooks', 'site-admin', [201], {
        scoped: false,
        body: () => hookBody,
      }),
    ],
  },
  'GET /api/v1/admin/hooks/:id': hookById,
  'PATCH /api/v1/admin/hooks/:id': hookById,
  'DELETE /api/v1/admin/hooks/:id': hookById,
  'DELETE /api/v1/repos/:owner/:name/collaborators/:collaborator': {
    probes: [
      api('DELETE', (c) => r(`/collaborators/${c.readerHandle}`)(c), 'admin', [204], {
        fresh: true,
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/collaborators/:collaborator/permission': {
    probes: [api('GET', (c) => r(`/collaborators/${c.writerHandle}/permission`)(c), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name*': {
    probes: [
      api('GET', r('/archive/main.zip'), 'read', [200]),
      api('GET', r('/archive/main.tar.gz'), 'read', [200]),
      api('GET', r('/commits/main/status'), 'read', [200]),
      api('GET', r('/commits/main/statuses'), 'read', [200]),
    ],
  },
  'GET /api/v1/repos/:owner/:name/branches': {
    probes: [api('GET', r('/branches'), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name/branches*': {
    probes: [api('GET', r('/branches/main'), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name/actions/secrets': {
    probes: [api('GET', r('/actions/secrets'), 'admin', [200])],
  },
  'PUT /api/v1/repos/:owner/:name/actions/secrets/:secretname': {
    probes: [
      api('PUT', r('/actions/secrets/PROBE'), 'admin', [201, 204], {
        body: () => ({ data: 'probe' }),
      }),
    ],
  },
  'DELETE /api/v1/repos/:owner/:name/actions/secrets/:secretname': {
    probes: [api('DELETE', r('/actions/secrets/NONE'), 'admin', [404])],
  },
  'GET /api/v1/repos/:owner/:name/actions/variables': {
    probes: [api('GET', r('/actions/variables'), 'admin', [200])],
  },
  'GET /api/v1/repos/:owner/:name/actions/variables/:variablename': {
    probes: [api('GET', r('/actions/variables/NONE'), 'admin', [404])],
  },
  'POST /api/v1/repos/:owner/:name/actions/variables/:variablename': {
    probes: [
      api('POST', r('/actions/variables/PROBE'), 'admin', [201, 409], {
        body: () => ({ value: 'probe' }),
      }),
    ],
  },
  'PUT /api/v1/repos/:owner/:name/actions/variables/:variablename': {
    probes: [
      api('PUT', r('/actions/variables/NONE'), 'admin', [404], { body: () => ({ value: 'x' }) }),
    ],
  },
  'DELETE /api/v1/repos/:owner/:name/actions/variables/:variablename': {
    probes: [api('DELETE', r('/actions/variables/NONE'), 'admin', [404])],
  },
  'GET /api/v1/repos/:owner/:name/branch_protections': {
    probes: [api('GET', r('/branch_protections'), 'admin', [200])],
  },
  'POST /api/v1/repos/:owner/:name/branch_protections': {
    probes: [
      api('POST', r('/branch_protections'), 'admin', [201], {
        body: (c) => ({ rule_name: c.unique('rule') }),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/branch_protections*': {
    probes: [api('GET', r('/branch_protections/stable'), 'admin', [200])],
  },
  'PATCH /api/v1/repos/:owner/:name/branch_protections*': {
    probes: [
      api('PATCH', r('/branch_protections/stable'), 'admin', [200], {
        body: () => ({ enable_status_check: false }),
      }),
    ],
  },
  'DELETE /api/v1/repos/:owner/:name/branch_protections*': {
    probes: [api('DELETE', r('/branch_protections/stable'), 'admin', [204], { fresh: true })],
  },
  'GET /api/v1/repos/:owner/:name/releases': {
    probes: [api('GET', r('/releases'), 'read', [200])],
  },
  'POST /api/v1/repos/:owner/:name/releases': {
    probes: [
      api('POST', r('/releases'), 'write', [201], {
        body: (c) => ({ tag_name: c.unique('v'), target_commitish: 'main' }),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/releases/latest': {
    probes: [api('GET', r('/releases/latest'), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name/releases*': {
    probes: [api('GET', r('/releases/tags/v1'), 'read', [200])],
  },
  'PATCH /api/v1/repos/:owner/:name/releases*': {
    probes: [api('PATCH', r('/releases/tags/v1'), 'write', [200], { body: () => ({ body: 'x' }) })],
  },
  'DELETE /api/v1/repos/:owner/:name/releases*': {
    probes: [api('DELETE', r('/releases/tags/v1'), 'write', [204], { fresh: true })],
  },
  'GET /api/v1/repos/:owner/:name/releases/:id': {
    probes: [api('GET', (c) => r(`/releases/${c.subject.releaseId}`)(c), 'read', [200])],
  },
  'PATCH /api/v1/repos/:owner/:name/releases/:id': {
    probes: [
      api('PATCH', (c) => r(`/releases/${c.subject.releaseId}`)(c), 'write', [200], {
        body: () => ({ body: 'y' }),
      }),
    ],
  },
  'DELETE /api/v1/repos/:owner/:name/releases/:id': {
    probes: [
      api('DELETE', (c) => r(`/releases/${c.subject.releaseId}`)(c), 'write', [204], {
        fresh: true,
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/labels': { probes: [api('GET', r('/labels'), 'read', [200])] },
  'GET /api/v1/repos/:owner/:name/actions/runs': {
    probes: [api('GET', r('/actions/runs'), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name/actions/runs/:run': {
    probes: [api('GET', (c) => r(`/actions/runs/${c.subject.runs.failed}`)(c), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name/actions/runs/:run/jobs': {
    probes: [api('GET', (c) => r(`/actions/runs/${c.subject.runs.failed}/jobs`)(c), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name/actions/runs/:run/artifacts': {
    probes: [
      api('GET', (c) => r(`/actions/runs/${c.subject.runs.failed}/artifacts`)(c), 'read', [200]),
    ],
  },
  'GET /api/v1/repos/:owner/:name/actions/artifacts': {
    probes: [api('GET', r('/actions/artifacts'), 'read', [200])],
  },
  'GET /api/v1/repos/:owner/:name/actions/artifacts/:artifact': {
    skip: 'needs an uploaded artifact; readers and outsiders of private repositories in test/artifacts/pipeline-artifacts.test.ts',
  },
  'DELETE /api/v1/repos/:owner/:name/actions/artifacts/:artifact': {
    skip: 'needs an uploaded artifact; writers and readers in test/artifacts/pipeline-artifacts.test.ts',
  },
  'GET /api/v1/repos/:owner/:name/actions/artifacts/:artifact/zip': {
    skip: 'needs an uploaded artifact; readers and outsiders in test/artifacts/pipeline-artifacts.test.ts',
  },
  'POST /api/v1/repos/:owner/:name/actions/workflows/:workflow/dispatches': {
    skip: 'needs a workflow file; writers, readers and outsiders in test/actions/actions-api.test.ts',
  },
  'GET /api/v1/repos/:owner/:name/actions/jobs/:job/logs': {
    skip: 'needs a job; readers and outsiders in test/actions/actions-api.test.ts',
  },
  'POST /api/v1/repos/:owner/:name/actions/runs/:run/rerun': {
    skip: 'needs a finished workflow run; writers and readers in test/actions/rerun.test.ts',
  },
  'POST /api/v1/repos/:owner/:name/actions/runs/:run/rerun-failed-jobs': {
    skip: 'needs a finished workflow run; writers and readers in test/actions/rerun.test.ts',
  },
  'POST /api/v1/repos/:owner/:name/actions/runs/:run/jobs/:job/rerun': {
    skip: 'needs a finished job; writers and readers in test/actions/rerun.test.ts',
  },
  'POST /api/v1/repos/:owner/:name/actions/runs/:run/cancel': {
    skip: 'needs a workflow run; writers, readers and outsiders in test/actions/run-cancel.test.ts and test/actions/outsiders.test.ts',
  },
  'POST /api/v1/repos/:owner/:name/actions/runs/:run/approve': {
    skip: 'needs a run from a fork; writers, readers, outsiders and unknown runs in test/actions/fork-approval.test.ts',
  },
  'GET /api/v1/repos/:owner/:name/actions/caches': {
    probes: [api('GET', r('/actions/caches'), 'write', [200])],
  },
  'DELETE /api/v1/repos/:owner/:name/actions/caches': {
    skip: 'needs a saved cache; writers and readers in test/actions/cache-scoping.test.ts',
  },
  'DELETE /api/v1/repos/:owner/:name/actions/caches/:cache': {
    skip: 'needs a saved cache; writers and unknown ids in test/actions/cache-scoping.test.ts',
  },
  'GET /api/v1/repos/:owner/:name/statuses/:sha': {
    probes: [api('GET', (c) => r(`/statuses/${c.subject.sha}`)(c), 'read', [200])],
  },
  'POST /api/v1/repos/:owner/:name/statuses/:sha': {
    probes: [
      api('POST', (c) => r(`/statuses/${c.subject.sha}`)(c), 'write', [201], {
        body: () => ({ state: 'success', context: 'ci' }),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/pulls': { probes: [api('GET', r('/pulls'), 'read', [200])] },
  'POST /api/v1/repos/:owner/:name/pulls': {
    probes: [
      api('POST', r('/pulls'), 'user+read', [201], {
        fresh: true,
        body: () => ({ title: 'again', head: 'feature', base: 'main' }),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/pulls/:number': {
    probes: [api('GET', (c) => r(`/pulls/${c.subject.pull}`)(c), 'read', [200])],
  },
  'PATCH /api/v1/repos/:owner/:name/pulls/:number': {
    probes: [
      api('PATCH', (c) => r(`/pulls/${c.subject.pull}`)(c), 'write', [201], {
        body: () => ({ body: 'edited' }),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/pulls/:number/merge': {
    // Not merged: Gitea answers 404 to everyone who may see the pull.
    probes: [api('GET', (c) => r(`/pulls/${c.subject.pull}/merge`)(c), 'read', [404])],
  },
  'POST /api/v1/repos/:owner/:name/pulls/:number/merge': {
    probes: [
      api('POST', (c) => r(`/pulls/${c.subject.pull}/merge`)(c), 'write', [200], {
        fresh: true,
        body: () => ({ Do: 'merge' }),
      }),
    ],
  },
  'GET /api/v1/repos/:owner/:name/pulls/:number/comments': {
    probes: [api('GET', (c) => r(`/pulls/${c.subject.pull}/comments`)(c), 'read', [200])],
  },
  'POST /api/v1/repos/:owner/:name/pulls/:number/comments': {
    probes: [
      api('POST', (c) => r(`/pulls/${c.subject.pull}/comments`)(c), 'user+read', [201], {
        body: () => ({ body: 'a remark', path: 'b.txt', line: 1 }),
      }),
    ],
  },
  // A review comment is changed by its author (the owner here) or a writer, as in Gitea.
  'PATCH /api/v1/repos/:owner/:name/pulls/comments/:id': {
    probes: [
      api('PATCH', (c) => r(`/pulls/comments/${c.subject.commentId}`)(c), 'write', [200], {
        body: () => ({ body: 'edited remark' }),
      }),
    ],
  },
  'DELETE /api/v1/repos/:owner/:name/pulls/comments/:id': {
    probes: [
      api('DELETE', (c) => r(`/pulls/comments/${c.subject.commentId}`)(c), 'write', [204], {
        fresh: true,
      }),
    ],
  },
  'GET /api/actions/ping.v1.PingService/Ping': actions,
  'GET /api/actions_cache/_apis/artifactcache/cache': cacheProtocol,
  'POST /api/actions_cache/_apis/artifactcache/caches': cacheProtocol,
  'PATCH /api/actions_cache/_apis/artifactcache/caches/:id': cacheProtocol,
  'POST /api/actions_cache/_apis/artifactcache/caches/:id': cacheProtocol,
  'GET /api/actions_cache/_apis/artifactcache/artifacts/:id': cacheProtocol,
  'POST /api/actions_pipeline/_apis/pipelines/workflows/:run/artifacts': artifactProtocol,
  'PATCH /api/actions_pipeline/_apis/pipelines/workflows/:run/artifacts': artifactProtocol,
  'GET /api/actions_pipeline/_apis/pipelines/workflows/:run/artifacts': artifactProtocol,
  'PUT /api/actions_pipeline/_apis/pipelines/workflows/:run/artifacts/:id/files': artifactProtocol,
  'GET /api/actions_pipeline/_apis/pipelines/workflows/:run/artifacts/:id/files': artifactProtocol,
  'GET /api/actions_pipeline/_apis/pipelines/workflows/:run/artifacts/:id/download':
    artifactProtocol,
  'PUT /api/actions_artifacts/kiln/artifacts/:blob': artifactProtocol,
  'GET /api/actions_artifacts/kiln/artifacts/:blob': artifactProtocol,
  'POST /twirp/github.actions.results.api.v1.ArtifactService/:method': artifactProtocol,
  ...webEntries(),
};

function webEntries(): Record<string, Entry> {
  const entries: Record<string, Entry> = {
    'GET /assets/:name': anyone('/assets/kiln.css'),
    'GET /explore': anyone('/explore'),
    'GET /search': anyone('/search?q=o'),
    // Signed-in people are sent on to where they were going.
    'GET /login': anyone('/login', [200, 303]),
    'GET /signup': anyone('/signup'),
    // 404 while no captcha is configured, as here.
    'GET /challenge': anyone('/challenge', [200, 404]),
    'POST /login': { skip: 'signing in is what makes a principal (test/web/session.test.ts)' },
    'POST /logout': { skip: 'ends the session the matrix signs in with (test/web)' },
    'POST /signup': { skip: 'account creation, open to all by configuration (test/web)' },
    'POST /challenge': { skip: 'the captcha challenge, open to all by design (test/protect)' },
    'GET /new': { probes: [page(() => '/new', 'user', false)] },
    'POST /new': {
      probes: [
        form(
          () => '/new',
          'user',
          (c) => ({ name: c.unique('web'), visibility: 'public' }),
          { scoped: false },
        ),
      ],
    },
    'GET /settings': { probes: [page(() => '/settings', 'user', false)] },
    'POST /settings': {
      probes: [
        form(
          () => '/settings',
          'user',
          () => ({ full_name: 'Some One', description: '' }),
          { scoped: false },
        ),
      ],
    },
    'GET /settings/password': { probes: [page(() => '/settings/password', 'user', false)] },
    'POST /settings/password': {
      skip: 'needs the current password, which only the person has (test/web)',
    },
    'GET /settings/keys': { probes: [page(() => '/settings/keys', 'user', false)] },
    'POST /settings/keys': keyById,
    'POST /settings/keys/:id/delete': keyById,
    'GET /repos/:owner/:name/settings/keys': { probes: [page(w('/settings/keys'), 'admin')] },
    'POST /repos/:owner/:name/settings/keys': keyById,
    'POST /repos/:owner/:name/settings/keys/:id/delete': keyById,
    'POST /repos/:owner/:name/sync-fork': remoteForks,
    'POST /repos/:owner/:name/propose-upstream': remotePulls,
    'POST /settings/federation/fork': remoteForks,
    'POST /repos/:owner/:name/pulls/:number/force-merge': {
      skip: 'merges past what blocks them: see test/pulls/protection-rules.test.ts',
    },
    'POST /repos/:owner/:name/pulls/:number/reviews': reviewById,
    'POST /repos/:owner/:name/pulls/:number/reviews/:id/dismiss': reviewById,
    'POST /:owner/:name/info/lfs/objects/batch': lfs,
    'PUT /:owner/:name/info/lfs/objects/:oid': lfs,
    'GET /:owner/:name/info/lfs/objects/:oid': lfs,
    'POST /:owner/:name/info/lfs/verify': lfs,
    'POST /:owner/:name/info/lfs/locks': lfs,
    'GET /:owner/:name/info/lfs/locks': lfs,
    'POST /:owner/:name/info/lfs/locks/verify': lfs,
    'POST /:owner/:name/info/lfs/locks/:id/unlock': lfs,
    'GET /settings/tokens': { probes: [page(() => '/settings/tokens', 'user', false)] },
    'POST /settings/tokens': {
      probes: [
        form(
          () => '/settings/tokens',
          'user',
          (c) => ({ name: c.unique('t'), scope: 'all' }),
          { scoped: false, ok: [201] },
        ),
      ],
    },
    'GET /settings/tokens/:id/delete': {
      probes: [page((c) => `/settings/tokens/${c.ownerTokenId}/delete`, 'owner-only', false)],
    },
    'GET /settings/sessions': { probes: [page(() => '/settings/sessions', 'user', false)] },
    // `others` ends every session of the caller but the current one; a session id that is not
    // the caller's own is refused like an unknown one (test/web/sessions.test.ts).
    'POST /settings/sessions/:id/revoke': {
      probes: [
        form(
          () => '/settings/sessions/others/revoke',
          'user',
          () => ({}),
          { scoped: false },
        ),
      ],
    },
    'POST /settings/tokens/:id/delete': {
      probes: [
        form(
          (c) => `/settings/tokens/${c.ownerTokenId}/delete`,
          'owner-only',
          () => ({ confirm: 'yes' }),
          {
            scoped: false,
            fresh: true,
          },
        ),
      ],
    },
    // This world runs without federation (no base URL), where these pages answer 404 to all;
    // who may use them is tested with federation on in test/federation.
    'GET /settings/federation': federationPages,
    'POST /settings/federation/follow': federationPages,
    'POST /settings/federation/unfollow': federationPages,
    'POST /settings/federation/star': federationPages,
    'POST /settings/federation/unstar': federationPages,
    'GET /admin/federation': federationPages,
    'POST /admin/federation/block': federationPages,
    'POST /admin/federation/unblock': federationPages,
    'POST /admin/federation/actors/block': federationBlocks,
    'POST /admin/federation/actors/unblock': federationBlocks,
    'GET /repos/:owner/:name/settings/federation': federationBlocks,
    'POST /repos/:owner/:name/settings/federation/block': federationBlocks,
    'POST /repos/:owner/:name/settings/federation/unblock': federationBlocks,
    'GET /admin/runners': { probes: [page(() => '/admin/runners', 'site-admin', false)] },
    'GET /admin/housekeeping': {
      probes: [page(() => '/admin/housekeeping', 'site-admin', false)],
    },
    'POST /admin/runners/tokens': {
      probes: [
        form(
          () => '/admin/runners/tokens',
          'site-admin',
          () => ({}),
          { scoped: false, ok: [200, 201, 303] },
        ),
      ],
    },
    'POST /admin/runners/tokens/:id/delete': {
      probes: [
        form(
          (c) => `/admin/runners/tokens/${c.instanceTokenId}/delete`,
          'site-admin',
          () => ({ confirm: 'yes' }),
          {
            scoped: false,
            fresh: true,
          },
        ),
      ],
    },
    'POST /admin/runners/:id/delete': {
      probes: [
        form(
          (c) => `/admin/runners/${c.instanceRunnerId}/delete`,
          'site-admin',
          () => ({ confirm: 'yes' }),
          {
            scoped: false,
            fresh: true,
          },
        ),
      ],
    },
    'GET /admin/users': { probes: [page(() => '/admin/users?q=a', 'site-admin', false)] },
    'GET /admin/repos': { probes: [page(() => '/admin/repos?q=o', 'site-admin', false)] },
    // Each admin form acts on the admin's own account: disabling or unmaking oneself is refused
    // with a message (303), enabling and making an admin of an admin change nothing, so no other
    // principal changes between probes.
    ...Object.fromEntries(
      ['disable', 'enable', 'make-admin', 'revoke-admin'].map((action) => [
        `POST /admin/users/:handle/${action}`,
        {
          probes: [
            form(
              (c) => `/admin/users/${c.adminHandle}/${action}`,
              'site-admin',
              () => ({}),
              { scoped: false },
            ),
          ],
        },
      ]),
    ),
    'GET /org/create': { probes: [page(() => '/org/create', 'user', false)] },
    'POST /org/create': {
      probes: [
        form(
          () => '/org/create',
          'user',
          (c) => ({ name: c.unique('neworg'), visibility: 'public' }),
          { scoped: false },
        ),
      ],
    },
    'GET /org/:org/members': {
      probes: [page((c) => `/org/${c.org}/members`, 'org-admin', false)],
    },
    'GET /org/:org/settings': {
      probes: [page((c) => `/org/${c.org}/settings`, 'org-admin', false)],
    },
    'POST /org/:org/settings': {
      probes: [
        form(
          (c) => `/org/${c.org}/settings`,
          'org-admin',
          () => ({ description: 'changed', website: '', visibility: 'public' }),
          { scoped: false },
        ),
      ],
    },
    // The organisation owns the subject repositories, so deleting it is refused (a message).
    'POST /org/:org/settings/delete': {
      probes: [
        form(
          (c) => `/org/${c.org}/settings/delete`,
          'org-admin',
          (c) => ({ confirm: c.org }),
          { scoped: false },
        ),
      ],
    },
    // Membership forms act on the site admin, whose access does not depend on membership.
    'POST /org/:org/members': {
      probes: [
        form(
          (c) => `/org/${c.org}/members`,
          'org-admin',
          (c) => ({ username: c.adminHandle, role: 'member' }),
          { scoped: false },
        ),
      ],
    },
    'POST /org/:org/members/role': {
      probes: [
        form(
          (c) => `/org/${c.org}/members/role`,
          'org-admin',
          (c) => ({ username: c.adminHandle, role: 'member' }),
          { scoped: false },
        ),
      ],
    },
    'POST /org/:org/members/remove': {
      probes: [
        form(
          (c) => `/org/${c.org}/members/remove`,
          'org-admin',
          (c) => ({ username: c.adminHandle }),
          { scoped: false },
        ),
      ],
    },
    'GET /org/:org/teams': {
      probes: [page((c) => `/org/${c.org}/teams`, 'org-admin', false)],
    },
    'POST /org/:org/teams': {
      probes: [
        form(
          (c) => `/org/${c.org}/teams`,
          'org-admin',
          (c) => ({ name: c.unique('team') }),
          {
            scoped: false,
          },
        ),
      ],
    },
    'GET /org/:org/teams/:team': {
      probes: [page((c) => `/org/${c.org}/teams/Owners`, 'org-admin', false)],
    },
    'POST /org/:org/teams/:team/edit': {
      probes: [
        form(
          (c) => `/org/${c.org}/teams/Owners/edit`,
          'org-admin',
          (c) => ({ description: c.unique('owners ') }),
          { scoped: false },
        ),
      ],
    },
    'POST /org/:org/teams/:team/delete': teamForms,
    'POST /org/:org/teams/:team/members': teamForms,
    'POST /org/:org/teams/:team/members/remove': teamForms,
    'POST /org/:org/teams/:team/repos': teamForms,
    'POST /org/:org/teams/:team/repos/remove': teamForms,
    'GET /:owner': { probes: [page((c) => `/${c.subject.owner}`, 'anyone', false)] },
    'GET /:owner/:name': {
      probes: [{ ...page((c) => `/${repo(c)}`, 'read'), ok: [301, 302, 303, 308] }],
    },
    ...Object.fromEntries(
      GITEA_REPO_SECTIONS.flatMap((section) => [
        [`GET /:owner/:name/${section}`, giteaSection(section)],
        [`GET /:owner/:name/${section}*`, giteaSection(tailOf(section))],
      ]),
    ),
    'GET /:owner/:name/pulls/:number': {
      probes: [{ ...page((c) => `/${repo(c)}/pulls/${c.subject.pull}`, 'read'), ok: [302] }],
    },
    'GET /:owner/:name/src/branch/*': {
      probes: [{ ...page((c) => `/${repo(c)}/src/branch/main/README.md`, 'read'), ok: [302] }],
    },
    'GET /:owner/:name/releases/tag/*': {
      probes: [{ ...page((c) => `/${repo(c)}/releases/tag/v1`, 'read'), ok: [302] }],
    },
    'GET /user/login': anyone('/user/login', [301]),
    'GET /user/sign_up': anyone('/user/sign_up', [301]),
    'GET /user/settings': anyone('/user/settings', [301]),
    'GET /user/settings/applications': anyone('/user/settings/applications', [301]),
    'GET /explore/repos': anyone('/explore/repos', [301]),
    'GET /admin': { probes: [page(() => '/admin', 'site-admin', false)] },
    'GET /:owner/:name/info/refs': {
      probes: [
        {
          surface: 'git',
          method: 'GET',
          path: (c) => `/${repo(c)}.git/info/refs?service=git-upload-pack`,
          need: 'read',
          ok: [200],
          scoped: true,
        },
        {
          surface: 'git',
          method: 'GET',
          path: (c) => `/${repo(c)}.git/info/refs?service=git-receive-pack`,
          need: 'write',
          ok: [200],
          scoped: true,
        },
      ],
    },
    'POST /:owner/:name/git-upload-pack': {
      probes: [
        {
          surface: 'git',
          method: 'POST',
          path: (c) => `/${repo(c)}.git/git-upload-pack`,
          need: 'read',
          ok: [200],
          scoped: true,
        },
      ],
    },
    'POST /:owner/:name/git-receive-pack': {
      probes: [
        {
          surface: 'git',
          method: 'POST',
          path: (c) => `/${repo(c)}.git/git-receive-pack`,
          need: 'write',
          ok: [200],
          scoped: true,
        },
      ],
    },
    // The actions source serves only action owners' repositories (test/actions/actions-source):
    // the subject's owner is an ordinary person, so it is missing for everyone, credentials or not.
    'GET /-/actions/:owner/:name/info/refs': {
      probes: [
        {
          surface: 'git',
          method: 'GET',
          path: (c) => `/-/actions/${repo(c)}.git/info/refs?service=git-upload-pack`,
          need: 'anyone',
          ok: [404],
          scoped: false,
        },
      ],
    },
    'POST /-/actions/:owner/:name/git-upload-pack': {
      probes: [
        {
          surface: 'git',
          method: 'POST',
          path: (c) => `/-/actions/${repo(c)}.git/git-upload-pack`,
          need: 'anyone',
          ok: [404],
          scoped: false,
        },
      ],
    },
    // Dumb HTTP is refused to everyone, existing repository or not.
    'GET /:owner/:name/HEAD': {
      probes: [
        {
          surface: 'git',
          method: 'GET',
          path: (c) => `/${repo(c)}.git/HEAD`,
          need: 'anyone',
          ok: [403],
          scoped: false,
        },
      ],
    },
    'GET /:owner/:name*': {
      probes: [
        {
          surface: 'git',
          method: 'GET',
          path: (c) => `/${repo(c)}.git/objects/info/packs`,
          need: 'anyone',
          ok: [403],
          scoped: false,
        },
      ],
    },
    'GET /repos/:owner/:name': { probes: [page(w(''), 'read')] },
    'GET /repos/:owner/:name*': {
      probes: [
        page(w('/raw/main/README.md'), 'read'),
        page(w('/archive/main.zip'), 'read'),
        page(w('/archive/main.tar.gz'), 'read'),
      ],
    },
    'GET /repos/:owner/:name/src': { probes: [{ ...page(w('/src'), 'read'), ok: [200, 302] }] },
    'GET /repos/:owner/:name/src*': { probes: [page(w('/src/main/README.md'), 'read')] },
    'GET /repos/:owner/:name/commits': {
      probes: [{ ...page(w('/commits'), 'read'), ok: [200, 302] }],
    },
    'GET /repos/:owner/:name/actions': {
      probes: [
        page(w('/actions'), 'read'),
        page(w('/actions?status=success&workflow=ci.yml'), 'read'),
      ],
    },
    'GET /repos/:owner/:name/actions/runs/:run': {
      skip: 'needs a workflow run; readers and outsiders in test/actions/actions-web.test.ts',
    },
    'POST /repos/:owner/:name/actions/runs/:run/cancel': {
      skip: 'needs a running workflow run; writers, readers and outsiders in test/actions/actions-web.test.ts',
    },
    'POST /repos/:owner/:name/actions/runs/:run/rerun': {
      skip: 'needs a finished workflow run; writers and readers in test/actions/rerun.test.ts',
    },
    'POST /repos/:owner/:name/actions/runs/:run/approve': {
      skip: 'needs a run from a fork; writers, readers and forged posts in test/actions/fork-approval-pages.test.ts',
    },
    'POST /repos/:owner/:name/actions/workflows/:file/dispatch': {
      skip: 'needs a workflow file; writers and readers in test/actions/dispatch-web.test.ts',
    },
    'GET /repos/:owner/:name/actions/runs/:run/jobs/:job': {
      skip: 'needs a job; readers and outsiders in test/actions/actions-web.test.ts',
    },
    'GET /repos/:owner/:name/actions/runs/:run/jobs/:job/logs': {
      skip: 'needs a job; readers and outsiders in test/actions/actions-web.test.ts',
    },
    'GET /repos/:owner/:name/actions/runs/:run/artifacts/:artifact': {
      skip: 'needs an uploaded artifact; readers and outsiders in test/artifacts/pipeline-artifacts.test.ts',
    },
    'GET /repos/:owner/:name/releases': { probes: [page(w('/releases'), 'read')] },
    'GET /repos/:owner/:name/releases*': {
      probes: [page(w('/releases/tag/v1'), 'read'), page(w('/releases/edit/v1'), 'write')],
    },
    'POST /repos/:owner/:name/releases*': {
      probes: [
        form(w('/releases/edit/v1'), 'write', (c) => ({ tag: 'v1', title: c.unique('web') }), {
          measure: rowsOf((id) => sql`select name from releases where repo_id = ${id}`),
        }),
      ],
    },
    'GET /repos/:owner/:name/releases/new': { probes: [page(w('/releases/new'), 'write')] },
    'POST /repos/:owner/:name/releases/new': {
      probes: [
        form(w('/releases/new'), 'write', (c) => ({ tag: c.unique('web'), target: 'main' }), {
          measure: countOf('releases'),
        }),
      ],
    },
    'POST /repos/:owner/:name/releases/delete': {
      probes: [
        form(w('/releases/delete'), 'write', () => ({ tag: 'v1', confirm: 'yes' }), {
          fresh: true,
          measure: countOf('releases'),
        }),
      ],
    },
    'POST /repos/:owner/:name/tags': {
      probes: [form(w('/tags'), 'write', (c) => ({ tag: c.unique('web'), target: 'main' }))],
    },
    'POST /repos/:owner/:name/tags/delete': {
      probes: [
        form(w('/tags/delete'), 'write', () => ({ tag: 'v0', confirm: 'yes' }), { fresh: true }),
      ],
    },
    'GET /repos/:owner/:name/commits*': { probes: [page(w('/commits/main'), 'read')] },
    'GET /repos/:owner/:name/commit/:sha': {
      probes: [page((c) => w(`/commit/${c.subject.sha}`)(c), 'read')],
    },
    'GET /repos/:owner/:name/commit/:sha.diff': {
      probes: [page((c) => w(`/commit/${c.subject.sha}.diff`)(c), 'read')],
    },
    'GET /repos/:owner/:name/commit/:sha.patch': {
      probes: [page((c) => w(`/commit/${c.subject.sha}.patch`)(c), 'read')],
    },
    'GET /repos/:owner/:name/branches': { probes: [page(w('/branches'), 'read')] },
    'GET /repos/:owner/:name/tags': { probes: [page(w('/tags'), 'read')] },
    'GET /repos/:owner/:name/pulls/:number.diff': {
      probes: [page((c) => w(`/pulls/${c.subject.pull}.diff`)(c), 'read')],
    },
    'GET /repos/:owner/:name/pulls/:number.patch': {
      probes: [page((c) => w(`/pulls/${c.subject.pull}.patch`)(c), 'read')],
    },
    'POST /repos/:owner/:name/fork': {
      probes: [
        form(w('/fork'), 'user+read', (c) => ({ owner: '', name: c.unique('webfork') }), {
          fresh: true,
        }),
      ],
    },
    'GET /repos/:owner/:name/settings': { probes: [page(w('/settings'), 'admin')] },
    'POST /repos/:owner/:name/settings': {
      probes: [
        form(
          w('/settings'),
          'admin',
          (c) => ({
            description: c.unique('web'),
            visibility: c.subject.visibility,
            default_branch: 'main',
          }),
          { measure: rowsOf((id) => sql`select description from repositories where id = ${id}`) },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/collaborators': {
      probes: [
        form(
          w('/settings/collaborators'),
          'admin',
          (c) => ({ username: c.otherHandle, permission: 'read' }),
          { fresh: true },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/collaborators/delete': {
      probes: [
        form(w('/settings/collaborators/delete'), 'admin', (c) => ({ username: c.readerHandle }), {
          fresh: true,
        }),
      ],
    },
    'POST /repos/:owner/:name/settings/branches': {
      probes: [form(w('/settings/branches'), 'admin', (c) => ({ branch: c.unique('keep') }))],
    },
    'POST /repos/:owner/:name/settings/branches/checks': {
      probes: [
        form(w('/settings/branches/checks'), 'admin', () => ({
          branch: 'stable',
          enable_status_check: 'on',
          status_check_contexts: 'CI / *',
        })),
      ],
    },
    'POST /repos/:owner/:name/settings/branches/delete': {
      probes: [
        form(w('/settings/branches/delete'), 'admin', () => ({ branch: 'stable' }), {
          fresh: true,
        }),
      ],
    },
    'POST /repos/:owner/:name/settings/delete': {
      probes: [
        form(
          w('/settings/delete'),
          'admin',
          (c) => ({ confirm: `${c.subject.owner}/${c.subject.name}`, name: c.subject.name }),
          { fresh: true },
        ),
      ],
    },
    'GET /repos/:owner/:name/settings/ci': { probes: [page(w('/settings/ci'), 'admin')] },
    'GET /org/:org/settings/hooks': {
      probes: [page((c) => `/org/${c.org}/settings/hooks`, 'org-admin', false)],
    },
    'POST /org/:org/settings/hooks': {
      probes: [
        form(
          (c) => `/org/${c.org}/settings/hooks`,
          'org-admin',
          (c) => ({ url: `https://hooks.example/${c.unique('o')}` }),
          { scoped: false, measure: hooksOfKind('org') },
        ),
      ],
    },
    'GET /org/:org/settings/hooks/:id': scopedHookPage,
    'POST /org/:org/settings/hooks/:id': scopedHookPage,
    'POST /org/:org/settings/hooks/:id/delete': scopedHookPage,
    'POST /org/:org/settings/hooks/:id/deliveries/:delivery/redeliver': scopedHookPage,
    'GET /admin/hooks': { probes: [page(() => '/admin/hooks', 'site-admin', false)] },
    'POST /admin/hooks': {
      probes: [
        form(
          () => '/admin/hooks',
          'site-admin',
          (c) => ({ url: `https://hooks.example/${c.unique('s')}` }),
          { scoped: false, measure: hooksOfKind('system') },
        ),
      ],
    },
    'GET /admin/hooks/:id': scopedHookPage,
    'POST /admin/hooks/:id': scopedHookPage,
    'POST /admin/hooks/:id/delete': scopedHookPage,
    'POST /admin/hooks/:id/deliveries/:delivery/redeliver': scopedHookPage,
    'GET /repos/:owner/:name/settings/hooks': { probes: [page(w('/settings/hooks'), 'admin')] },
    'POST /repos/:owner/:name/settings/hooks': {
      probes: [
        form(w('/settings/hooks'), 'admin', () => ({ url: 'https://hooks.example/y' }), {
          measure: rowsOf((id) => sql`select count(*) as n from webhooks where owner_id = ${id}`),
        }),
      ],
    },
    'GET /repos/:owner/:name/settings/hooks/:id': {
      probes: [page((c) => w(`/settings/hooks/${c.subject.hookId}`)(c), 'admin')],
    },
    'POST /repos/:owner/:name/settings/hooks/:id': {
      probes: [
        form(
          (c) => w(`/settings/hooks/${c.subject.hookId}`)(c),
          'admin',
          (c) => ({ url: `https://hooks.example/${c.unique('h')}` }),
          { measure: hookUrls },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/hooks/:id/delete': {
      probes: [
        form(
          (c) => w(`/settings/hooks/${c.subject.hookId}/delete`)(c),
          'admin',
          () => ({ confirm: 'yes' }),
          {
            fresh: true,
          },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/hooks/:id/test': {
      probes: [
        form(
          (c) => w(`/settings/hooks/${c.subject.hookId}/test`)(c),
          'admin',
          () => ({}),
          {
            measure: deliveryCount,
          },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/hooks/:id/deliveries/:delivery/redeliver': {
      probes: [
        form(
          (c) =>
            w(`/settings/hooks/${c.subject.hookId}/deliveries/${c.subject.deliveryId}/redeliver`)(
              c,
            ),
          'admin',
          () => ({}),
          { measure: deliveryCount },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/ci/tokens': {
      probes: [form(w('/settings/ci/tokens'), 'admin', () => ({}), { ok: [200, 201, 303] })],
    },
    'POST /repos/:owner/:name/settings/ci/tokens/:id/delete': {
      probes: [
        form(
          (c) => w(`/settings/ci/tokens/${c.subject.ciTokenId}/delete`)(c),
          'admin',
          () => ({ confirm: 'yes' }),
          { fresh: true },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/ci/runners/:id/delete': {
      probes: [
        form(
          (c) => w(`/settings/ci/runners/${c.subject.runnerId}/delete`)(c),
          'admin',
          () => ({ confirm: 'yes' }),
          { fresh: true },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/ci/secrets': {
      probes: [
        form(w('/settings/ci/secrets'), 'admin', (c) => ({ name: c.unique('S'), value: 'value' }), {
          measure: countOf('ci_secrets'),
        }),
      ],
    },
    'POST /repos/:owner/:name/settings/ci/caches/:id/delete': {
      skip: 'needs a saved cache; admins and strangers in test/actions/ci-settings.test.ts',
    },
    'POST /repos/:owner/:name/settings/ci/secrets/:secret/delete': {
      probes: [
        form(w('/settings/ci/secrets/DEPLOY/delete'), 'admin', () => ({ confirm: 'yes' }), {
          fresh: true,
        }),
      ],
    },
    'POST /repos/:owner/:name/settings/ci/variables': {
      probes: [
        form(w('/settings/ci/variables'), 'admin', (c) => ({ name: c.unique('V'), value: 'v' }), {
          measure: countOf('ci_variables'),
        }),
      ],
    },
    'GET /repos/:owner/:name/pulls': { probes: [page(w('/pulls'), 'read')] },
    'GET /repos/:owner/:name/pulls/new': { probes: [page(w('/pulls/new'), 'user+read')] },
    'POST /repos/:owner/:name/pulls/new': {
      probes: [
        form(
          w('/pulls/new'),
          'user+read',
          () => ({ base: 'main', head: 'feature', title: 'web' }),
          {
            fresh: true,
            measure: countOf('pull_requests'),
          },
        ),
      ],
    },
    'GET /repos/:owner/:name/compare': {
      probes: [{ ...page(w('/compare?base=main&head=feature'), 'read'), ok: [302] }],
    },
    'GET /repos/:owner/:name/compare*': { probes: [page(w('/compare/main...feature'), 'read')] },
    'POST /repos/:owner/:name/compare*': {
      probes: [
        form(w('/compare/main...feature'), 'user+read', () => ({ title: 'compared' }), {
          fresh: true,
          measure: countOf('pull_requests'),
        }),
      ],
    },
    'GET /repos/:owner/:name/pulls/:number': {
      probes: [page((c) => w(`/pulls/${c.subject.pull}`)(c), 'read')],
    },
    'GET /repos/:owner/:name/pulls/:number/mergeability': {
      probes: [page((c) => w(`/pulls/${c.subject.pull}/mergeability`)(c), 'read')],
    },
    'GET /repos/:owner/:name/pulls/:number/commits': {
      probes: [page((c) => w(`/pulls/${c.subject.pull}/commits`)(c), 'read')],
    },
    'GET /repos/:owner/:name/pulls/:number/files': {
      probes: [page((c) => w(`/pulls/${c.subject.pull}/files`)(c), 'read')],
    },
    'POST /repos/:owner/:name/pulls/:number/comments': {
      probes: [
        form(
          (c) => w(`/pulls/${c.subject.pull}/comments`)(c),
          'user+read',
          () => ({ body: 'from the page', path: 'b.txt', line: '1', side: 'RIGHT' }),
          { measure: countOf('review_comments') },
        ),
      ],
    },
    'POST /repos/:owner/:name/pulls/:number/comments/:id/edit': {
      probes: [
        form(
          (c) => w(`/pulls/${c.subject.pull}/comments/${c.subject.commentId}/edit`)(c),
          'write',
          (c) => ({ body: c.unique('edited ') }),
          { measure: commentRows },
        ),
      ],
    },
    'POST /repos/:owner/:name/pulls/:number/comments/:id/delete': {
      probes: [
        form(
          (c) => w(`/pulls/${c.subject.pull}/comments/${c.subject.commentId}/delete`)(c),
          'write',
          () => ({ confirm: 'yes' }),
          { fresh: true, measure: countOf('review_comments') },
        ),
      ],
    },
    // Threads are resolved by the pull's author (the owner here) or a writer.
    'POST /repos/:owner/:name/pulls/:number/comments/:id/resolve': {
      probes: [
        form(
          (c) => w(`/pulls/${c.subject.pull}/comments/${c.subject.commentId}/resolve`)(c),
          'write',
          () => ({}),
          { fresh: true, measure: commentRows },
        ),
      ],
    },
    'POST /repos/:owner/:name/pulls/:number/comments/:id/unresolve': {
      // The subject's thread is open, so reopening changes nothing: only the refusals are seen.
      probes: [
        form(
          (c) => w(`/pulls/${c.subject.pull}/comments/${c.subject.commentId}/unresolve`)(c),
          'write',
          () => ({}),
        ),
      ],
    },
    // Writers, and the author (the owner here), close, reopen and merge.
    'POST /repos/:owner/:name/pulls/:number/close': {
      probes: [
        form(
          (c) => w(`/pulls/${c.subject.pull}/close`)(c),
          'write',
          () => ({ confirm: 'yes' }),
          {
            fresh: true,
            measure: pullState,
          },
        ),
      ],
    },
    'POST /repos/:owner/:name/pulls/:number/reopen': {
      // The subject's pull is open, so reopening changes nothing: only the refusals are seen.
      probes: [
        form(
          (c) => w(`/pulls/${c.subject.pull}/reopen`)(c),
          'write',
          () => ({}),
        ),
      ],
    },
    'POST /repos/:owner/:name/pulls/:number/merge': {
      probes: [
        form(
          (c) => w(`/pulls/${c.subject.pull}/merge`)(c),
          'write',
          () => ({ confirm: 'yes' }),
          {
            fresh: true,
            measure: pullState,
          },
        ),
      ],
    },
    'POST /repos/:owner/:name/settings/ci/variables/:variable/delete': {
      probes: [
        form(w('/settings/ci/variables/MODE/delete'), 'admin', () => ({ confirm: 'yes' }), {
          fresh: true,
        }),
      ],
    },
  };
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY']) {
    for (const procedure of [
      'ping.v1.PingService/Ping',
      'runner.v1.RunnerService/Register',
      'runner.v1.RunnerService/Declare',
      'runner.v1.RunnerService/FetchTask',
      'runner.v1.RunnerService/UpdateTask',
      'runner.v1.RunnerService/UpdateLog',
    ]) {
      entries[`${method} /api/actions/${procedure}`] = actions;
    }
  }
  return entries;
}
