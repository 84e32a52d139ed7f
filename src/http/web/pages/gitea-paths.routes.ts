import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import type { BaseUrlConfig } from '../../base-url.ts';
import { apiNotFoundHandler } from '../../errors/api-errors.ts';
import { type PageRequest, PullParams, RepoParams, RepoRestParams } from '../page-params.ts';
import { encodeSegments, repoUrl } from '../paths.ts';

/** What Gitea's page addresses use (the base URL for the API's own 404 answer). */
export type GiteaPathRouteDeps = {
  readonly services: Pick<DomainServices, 'repos'>;
  readonly config: BaseUrlConfig;
};

/** Gitea's fixed page addresses and Kiln's page for each; they never depend on who asks. */
const FIXED_ALIASES: Readonly<Record<string, string>> = {
  '/user/login': '/login',
  '/user/sign_up': '/signup',
  '/user/settings': '/settings',
  '/user/settings/applications': '/settings/tokens',
  '/explore/repos': '/explore',
};

/**
 * The sections of a repository's pages Gitea and Kiln both have, under `/{owner}/{name}/…` in
 * Gitea and `/repos/{owner}/{name}/…` in Kiln: each, and anything below it, is sent to Kiln's.
 */
export const GITEA_REPO_SECTIONS = [
  'pulls',
  'releases',
  'tags',
  'branches',
  'actions',
  'settings',
  'commits',
  'commit',
  'src',
  'raw',
  'compare',
] as const;

/** Sections whose Gitea paths name the kind of ref (`src/branch/main`); Kiln's take it bare. */
const REF_KIND_SECTIONS: ReadonlySet<string> = new Set(['src', 'raw', 'commits']);

/** Kiln's tail for a Gitea section and what follows it. */
function sectionTail(section: string, rest: string): string {
  const bare = REF_KIND_SECTIONS.has(section) ? rest.replace(/^(branch|tag|commit)\//, '') : rest;
  return bare === '' ? `/${section}` : `/${section}/${encodeSegments(bare)}`;
}

/** The request's query string, with its `?`, or nothing. */
function queryOf(request: FastifyRequest): string {
  const at = request.url.indexOf('?');
  return at === -1 ? '' : request.url.slice(at);
}

/**
 * Addresses people bring from Gitea (bookmarks, links in issues, muscle memory), each sent to
 * Kiln's page: fixed aliases permanently (301); a repository's addresses (`/{owner}/{name}`,
 * `…/pulls/{n}`, `…/compare/{spec}`, `…/src/branch/{b}/{path}`, `…/releases/tag/{t}`, and every
 * section of GITEA_REPO_SECTIONS with what follows it) only when the viewer may see
 * the repository, and temporarily (302), since the answer depends on who asks. A repository
 * that is private to the viewer or missing answers 404 here, so the redirect reveals nothing.
 * Git's own paths below `/{owner}/{name}.git` are registered by smart HTTP and are not touched.
 */
export function registerGiteaPathRoutes(parent: FastifyInstance, deps: GiteaPathRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  for (const [from, to] of Object.entries(FIXED_ALIASES)) {
    server.get(from, async (request, reply) => reply.redirect(to + queryOf(request), 301));
  }

  const notFoundInApi = apiNotFoundHandler(deps.config);
  const toRepo =
    <P extends RepoParams>(tail: (params: P) => string) =>
    async (request: PageRequest<P>, reply: FastifyReply) => {
      const params = request.params;
      // `/api/…` is the API's, which no account can hold (a reserved name): an unknown API path
      // that happens to fit `/{owner}/{name}/{section}` gets the API's 404, not a page.
      if (params.owner === 'api') return notFoundInApi(request, reply);
      // `/{owner}/{name}.git` typed into a browser means the repository too.
      const name = params.name.endsWith('.git') ? params.name.slice(0, -4) : params.name;
      const { repo } = await deps.services.repos.get(
        viewerUser(request.viewer),
        params.owner,
        name,
      );
      return reply.redirect(repoUrl(repo) + tail(params) + queryOf(request), 302);
    };

  server.get(
    '/:owner/:name',
    { schema: { params: RepoParams } },
    toRepo(() => ''),
  );
  server.get(
    '/:owner/:name/pulls/:number',
    { schema: { params: PullParams } },
    toRepo((p: PullParams) => `/pulls/${encodeURIComponent(p.number)}`),
  );
  // Gitea names the kind of ref in the path; Kiln's src pages take a branch name as it is.
  server.get(
    '/:owner/:name/src/branch/*',
    { schema: { params: RepoRestParams } },
    toRepo((p: RepoRestParams) => `/src/${encodeSegments(p['*'] ?? '')}`),
  );
  // The compare page, which `git push` names in its hint as Gitea does.
  server.get(
    '/:owner/:name/compare/*',
    { schema: { params: RepoRestParams } },
    toRepo((p: RepoRestParams) => `/compare/${encodeSegments(p['*'] ?? '')}`),
  );
  // Every other section, bare and with a tail, the same way as the repository itself: found in
  // any letter case (and sent to its own spelling), and 404 when the viewer may not see it.
  for (const section of GITEA_REPO_SECTIONS) {
    server.get(
      `/:owner/:name/${section}`,
      { schema: { params: RepoParams } },
      toRepo(() => sectionTail(section, '')),
    );
    if (section === 'compare') continue;
    server.get(
      `/:owner/:name/${section}/*`,
      { schema: { params: RepoRestParams } },
      toRepo((p: RepoRestParams) => sectionTail(section, p['*'] ?? '')),
    );
  }
  server.get(
    '/:owner/:name/releases/tag/*',
    { schema: { params: RepoRestParams } },
    toRepo((p: RepoRestParams) => `/releases/tag/${encodeSegments(p['*'] ?? '')}`),
  );
}
