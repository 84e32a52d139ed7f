import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import { isUser } from '../../../domain/users/user.types.ts';
import { isRecord } from '../../../lib/narrow.ts';
import {
  type SearchPerson,
  type SearchRepository,
  toSearchPerson,
  toSearchRepository,
} from '../../../present/search.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { layout } from '../layout.ts';
import { type Pages, sendMarkup } from '../page.ts';
import { searchPage } from './search.view.ts';

/** What search and explore use. */
export type SearchRouteDeps = {
  readonly services: Pick<DomainServices, 'repos' | 'users'>;
};

/** Longer queries are cut: nobody types more, and every character widens a LIKE scan. */
export const MAX_SEARCH_QUERY_LENGTH = 100;
/** Results per kind; search is a way in, not a listing. */
export const SEARCH_RESULT_LIMIT = 20;

/** The `q` parameter, trimmed and bounded; '' when absent or not text. */
export function searchQuery(query: unknown): string {
  if (!isRecord(query)) return '';
  const raw = query.q;
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value.trim().slice(0, MAX_SEARCH_QUERY_LENGTH).trim() : '';
}

/**
 * Whether an `Accept` header prefers JSON to HTML: the higher quality wins, an exact media type
 * beats a wildcard on a tie, and HTML wins what is left (browsers also send a wildcard).
 */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  let json = { q: 0, exact: false };
  let page = { q: 0, exact: false };
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const qParam = params.find((param) => param.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    const better = (current: { q: number; exact: boolean }, exact: boolean) =>
      exact && !current.exact ? true : exact === current.exact && q > current.q;
    if (range === 'application/json') {
      if (better(json, true)) json = { q, exact: true };
    } else if (range === 'text/html') {
      if (better(page, true)) page = { q, exact: true };
    } else if (range === '*/*' || range === 'application/*' || range === 'text/*') {
      if (range !== 'text/*' && better(json, false)) json = { q, exact: false };
      if (range !== 'application/*' && better(page, false)) page = { q, exact: false };
    }
  }
  if (json.q <= 0) return false;
  if (json.q !== page.q) return json.q > page.q;
  return json.exact && !page.exact;
}

/**
 * `GET /search?q=`: anonymous search over people (never their email) and the repositories the
 * caller may see. A metered page: each query is a pair of LIKE scans. The same path answers
 * `{"users": [...], "repositories": [...]}` to clients that ask for JSON.
 */
export function registerSearchRoutes(
  server: FastifyInstance,
  deps: SearchRouteDeps,
  pages: Pages,
): void {
  server.get('/search', { config: { metered: true } }, async (request, reply) => {
    const query = searchQuery(request.query);
    let people: SearchPerson[] = [];
    let repositories: SearchRepository[] = [];
    if (query !== '') {
      const [accounts, repos] = await Promise.all([
        // Organisations share the handle namespace; ask for more so people still fill the list.
        deps.services.users.search(query, SEARCH_RESULT_LIMIT * 2),
        deps.services.repos.listVisible(
          viewerUser(request.viewer),
          { offset: 0, limit: SEARCH_RESULT_LIMIT },
          { query },
        ),
      ]);
      people = accounts
        .filter(isUser)
        .slice(0, SEARCH_RESULT_LIMIT)
        .map((account) => toSearchPerson(account));
      repositories = repos.items.map(({ repo }) => toSearchRepository(repo));
    }
    reply.header('Vary', 'Accept, Cookie');
    if (prefersJson(request.headers.accept)) {
      return reply.type('application/json; charset=utf-8').send({ users: people, repositories });
    }
    const context = pages.context(request, reply, { searchQuery: query });
    reply.type('text/html; charset=utf-8');
    return sendMarkup(
      reply,
      layout(context, {
        title: query === '' ? 'Search' : `Search: ${query}`,
        body: searchPage({ query, people, repositories }),
      }),
    );
  });
}
