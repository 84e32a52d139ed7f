import { z } from 'zod';
import { toApiUser } from '../present/user.ts';
import { addListTool, addTool, recordResult, repoArgs, type ToolKit } from './tool-kit.ts';

/** `whoami`, `list_repositories` and `get_repository`. */
export function registerRepoTools(kit: ToolKit<'repos' | 'users' | 'admins'>): void {
  const { services, context } = kit;
  const { repos, users, admins } = services;

  addTool(
    kit,
    'whoami',
    {
      title: 'Who am I',
      description:
        'The Kiln account this server acts as: the owner of the personal access token it was ' +
        'started with. Returns a Gitea User record, with `email` because it is your own. ' +
        'Everything the other tools do, they do as this account and with its permissions.',
      input: z.strictObject({}),
      effect: 'read',
      scopes: ['user'],
    },
    async (_args, user) =>
      recordResult(toApiUser(user, context, { self: true, isAdmin: admins.isAdmin(user) })),
  );

  addListTool(
    kit,
    'list_repositories',
    {
      title: 'List repositories',
      description:
        'Repositories you can see (public ones, your own, those of your organisations and ' +
        'those you collaborate on), by owner and name, as Gitea Repository records with your ' +
        '`permissions`. Narrow with `owner` (a user or organisation handle) and/or `query` ' +
        '(a substring of the name). Paginated: `page`, `limit` (at most 50); the result has ' +
        '`items`, `total` and `next_page` (null on the last page).',
      args: {
        owner: z.string().min(1).max(100).optional().describe('Only repositories of this owner'),
        query: z.string().min(1).max(200).optional().describe('Substring of the name to match'),
      },
    },
    async (args, paging, user) => {
      const owner = args.owner === undefined ? undefined : await users.getAccount(args.owner);
      const { items, total } = await repos.listVisible(user, paging, {
        ...(owner ? { ownerId: owner.id } : {}),
        ...(args.query !== undefined ? { query: args.query.trim() } : {}),
      });
      return { items: await kit.repoViews.many(user, items, context), total };
    },
  );

  addTool(
    kit,
    'get_repository',
    {
      title: 'Get a repository',
      description:
        'One repository as a Gitea Repository record: `default_branch` (read live from git), ' +
        '`empty`, `private`, `fork` and `parent`, and your `permissions` (pull, push, admin). ' +
        'A repository you may not see is reported as not found.',
      input: z.strictObject(repoArgs),
      effect: 'read',
    },
    async ({ owner, repo }, user) =>
      recordResult(await kit.repoViews.one(user, await repos.get(user, owner, repo), context)),
  );
}
