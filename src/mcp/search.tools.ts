import { z } from 'zod';
import { isUser } from '../domain/users/user.types.ts';
import { toSearchPerson, toSearchRepository } from '../present/search.ts';
import { addTool, MAX_LIMIT, recordResult, type ToolKit } from './tool-kit.ts';

const DEFAULT_SEARCH_LIMIT = 20;

/** `search`: people and repositories by a piece of their name. */
export function registerSearchTools(kit: ToolKit<'users' | 'repos'>): void {
  const { users, repos } = kit.services;

  addTool(
    kit,
    'search',
    {
      title: 'Search people and repositories',
      description:
        'Finds people whose handle or full name contains `query`, and repositories you can see ' +
        'whose name contains it. People come as short person views (id, login, username, ' +
        'full_name; never an email) and repositories as shallow records (owner, name, ' +
        'full_name, description, private, updated_at): use get_repository for the full record. ' +
        `At most \`limit\` of each (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_LIMIT}).`,
      input: z.strictObject({
        query: z.string().trim().min(1).max(100).describe('Text to look for, e.g. "web"'),
        limit: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(`Results of each kind; default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_LIMIT}`),
      }),
      effect: 'read',
    },
    async ({ query, limit }, user) => {
      const size = Math.min(limit ?? DEFAULT_SEARCH_LIMIT, MAX_LIMIT);
      const [accounts, found] = await Promise.all([
        // Organisations share the handle namespace; ask for more so people still fill the list.
        users.search(query, size * 2),
        repos.listVisible(user, { offset: 0, limit: size }, { query }),
      ]);
      return recordResult({
        users: accounts.filter(isUser).slice(0, size).map(toSearchPerson),
        repositories: found.items.map(({ repo }) => toSearchRepository(repo)),
      });
    },
  );
}
