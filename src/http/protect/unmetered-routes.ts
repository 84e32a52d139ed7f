/**
 * Every GET route that bot protection deliberately does not meter, with the reason. SPEC.md
 * meters the renderings of commits, history, pull requests and search (each such route carries
 * `config: { metered: true }`); everything else a server answers to GET must be listed here or
 * below, and `test/protect/metered-routes.test.ts` fails on a route that is neither — so a new
 * page that runs git is metered or argued for, never forgotten. docs/bot-protection.md shows
 * the same two lists.
 */
import { GITEA_REPO_SECTIONS } from '../web/pages/gitea-paths.routes.ts';

/** Families of routes SPEC.md never meters, by path prefix. */
export const UNMETERED_PREFIXES: ReadonlyArray<readonly [prefix: string, reason: string]> = [
  ['/api/v1/', 'the REST API is never metered (SPEC.md); clients authenticate with tokens'],
  ['/api/actions/', 'the runner protocol is never metered (SPEC.md)'],
  ['/api/actions_cache/', "the CI cache of running jobs: a task's token or a signed link"],
  [
    '/api/actions_pipeline/',
    "the artifacts of running jobs (upload-artifact v1-v3): a task's token",
  ],
  ['/api/actions_artifacts/', 'signed artifact links of running jobs (upload-artifact v4)'],
  ['/api/swagger', 'the API description, one static document'],
];

const GITEA_SECTION = "Gitea's address of a repository's section: a redirect, database only";

/** Single GET routes that are not metered, by their registered pattern. */
export const UNMETERED_ROUTES: Readonly<Record<string, string>> = {
  '/healthz': 'health checks of load balancers and supervisors',
  '/metrics': 'scraped by the operator; closed to other clients (service.metrics.*)',
  '/assets/:name': 'static files, the same for everyone',
  '/': 'the start page: database only',
  '/explore': 'the repository list: database only',
  '/signup': 'sign-up form; signing up must never be refused by metering',
  '/login': 'sign-in form; a signed-in visitor gets the larger budget',
  '/challenge': 'the challenge itself',
  '/settings': 'account settings: signed-in users only, database only',
  '/settings/password': 'account settings: signed-in users only',
  '/settings/tokens': 'account settings: signed-in users only',
  '/settings/tokens/:id/delete': 'account settings: signed-in users only',
  '/settings/sessions': 'account settings: signed-in users only',
  '/settings/federation': 'account settings: signed-in users only, database only',
  '/settings/keys': 'account settings: signed-in users only, database only',
  '/admin/runners': 'administrators only',
  '/admin/housekeeping': 'administrators only',
  '/admin/hooks': 'system webhooks: administrators only, database only',
  '/admin/hooks/:id': 'one system webhook and its last 50 deliveries: administrators only',
  '/org/:org/settings/hooks': "an organisation's webhooks: its owners only, database only",
  '/org/:org/settings/hooks/:id':
    "one organisation webhook and its last 50 deliveries: the organisation's owners only",
  '/admin/federation': 'administrators only',
  '/admin/users': 'administrators only, database only',
  '/admin/repos': 'administrators only, database and directory sizes',
  '/new': 'the creation form: signed-in users only',
  '/org/create': 'the organisation form: signed-in users only',
  '/org/:org/members': "an organisation's members: its members only, database only",
  '/org/:org/settings': "an organisation's settings: its owners only, database only",
  '/org/:org/teams': "an organisation's teams: its members only, database only",
  '/org/:org/teams/:team':
    "one team, its members and repositories: the organisation's members only",
  '/:owner': 'a person or organisation: database only',
  '/:owner/:name': 'a redirect to the repository page',
  '/:owner/:name/pulls/:number': "Gitea's address of a pull request: a redirect, database only",
  '/:owner/:name/compare/*': "Gitea's address of the compare page: a redirect, database only",
  '/:owner/:name/src/branch/*': "Gitea's address of code on a branch: a redirect, database only",
  '/:owner/:name/releases/tag/*': "Gitea's address of a release: a redirect, database only",
  '/user/login': "Gitea's address of the sign-in form: a fixed redirect",
  '/user/sign_up': "Gitea's address of the sign-up form: a fixed redirect",
  '/user/settings': "Gitea's address of account settings: a fixed redirect",
  '/user/settings/applications': "Gitea's address of the token settings: a fixed redirect",
  '/explore/repos': "Gitea's address of the repository list: a fixed redirect",
  '/admin': 'the administration overview: administrators only, database only',
  '/:owner/:name/info/refs':
    'git transport (clones and fetches) is never metered (SPEC.md); it never renders',
  '/-/actions/:owner/:name/info/refs':
    'the actions source runners fetch from: git transport, never metered (SPEC.md)',
  '/:owner/:name/info/lfs/objects/:oid':
    'Git LFS downloads: git transport, never metered (SPEC.md); one file streamed, no git run',
  '/:owner/:name/info/lfs/locks':
    'Git LFS locks of git-lfs clients: git transport, never metered; database only',
  '/:owner/:name/HEAD': 'dumb HTTP, refused without running git',
  '/:owner/:name/objects/*': 'dumb HTTP, refused without running git',
  '/repos/:owner/:name':
    'the repository front page: the default branch tip, one tree and its README, kept browsable',
  '/repos/:owner/:name/src':
    'the code browser: SPEC.md meters commits, history, pulls and search, not reading code',
  '/repos/:owner/:name/src/*':
    'the code browser: SPEC.md meters commits, history, pulls and search, not reading code',
  '/repos/:owner/:name/raw/*':
    'raw files, embedded by READMEs (images); metering them would break pages of other sites',
  '/repos/:owner/:name/archive/*':
    'archives are not metered (SPEC.md); concurrent builds are bounded instead (service.archive.*)',
  '/repos/:owner/:name/branches': 'one ref listing',
  '/repos/:owner/:name/pulls/:number/mergeability':
    "asked by a pull's (metered) page: one merge check per pair of tips, remembered, whoever asks",
  '/repos/:owner/:name/tags': 'one ref listing',
  '/repos/:owner/:name/releases': 'releases: database and one ref listing',
  '/repos/:owner/:name/releases/tag/*':
    'one release, the API html_url: like the releases list, database, one ref listing and its notes',
  '/repos/:owner/:name/releases/new': 'the release form: writers only',
  '/repos/:owner/:name/releases/edit/*': 'the release form: writers only',
  '/repos/:owner/:name/actions': 'the workflow runs list: database only, never git',
  '/repos/:owner/:name/actions/runs/:run':
    'one run and its jobs: database only; reloads itself every few seconds while running',
  '/repos/:owner/:name/actions/runs/:run/jobs/:job/logs':
    "a job's raw log, streamed from its file, never built in memory; like the REST API's twin",
  '/repos/:owner/:name/actions/runs/:run/artifacts/:artifact':
    "a run's artifact, streamed from its files as a zip, never built in memory",
  '/repos/:owner/:name/pulls/new': 'the pull request form: signed-in users only',
  '/repos/:owner/:name/settings': 'repository settings: owners only',
  '/repos/:owner/:name/settings/ci': 'repository CI settings: owners only',
  '/repos/:owner/:name/settings/hooks': 'repository webhooks: owners only',
  '/repos/:owner/:name/settings/keys': 'repository deploy keys: owners only, database only',
  '/repos/:owner/:name/settings/federation':
    'repository federation blocks: its administrators only, database only',
  ...Object.fromEntries(
    GITEA_REPO_SECTIONS.flatMap((section) => [
      [`/:owner/:name/${section}`, GITEA_SECTION],
      [`/:owner/:name/${section}/*`, GITEA_SECTION],
    ]),
  ),
  '/repos/:owner/:name/settings/hooks/:id':
    'one webhook and its last 50 deliveries: owners only, database only',
};

/** Why a GET route is not metered, or undefined when nothing says it may go unmetered. */
export function unmeteredReason(url: string): string | undefined {
  return (
    UNMETERED_ROUTES[url] ?? UNMETERED_PREFIXES.find(([prefix]) => url.startsWith(prefix))?.[1]
  );
}
