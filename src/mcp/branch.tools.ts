import { z } from 'zod';
import type { BranchListing } from '../domain/branches/branch.types.ts';
import { toApiBranch } from '../present/branch.ts';
import type { ConvertContext } from '../present/context.ts';
import { addListTool, addTool, recordResult, repoArgs, type ToolKit } from './tool-kit.ts';

function toApiBranches(listing: BranchListing, context: ConvertContext) {
  const { repo, access } = listing.visible;
  return listing.branches.map((branch) =>
    toApiBranch(branch, repo, access.level, listing.handles, context),
  );
}

/** `list_branches` and `get_branch`. */
export function registerBranchTools(kit: ToolKit<'branches'>): void {
  const { services, context } = kit;
  const { branches } = services;

  addListTool(
    kit,
    'list_branches',
    {
      title: 'List branches',
      description:
        "A repository's branches by name, as Gitea Branch records: `name`, the tip `commit` " +
        '(id, message, author, committer, timestamp), `protected`, and whether you may push and ' +
        'merge (`user_can_push`, `user_can_merge`). An empty repository has none. Paginated: ' +
        '`page`, `limit` (at most 50); the result has `items`, `total` and `next_page`.',
      args: repoArgs,
    },
    async ({ owner, repo }, paging, user) => {
      const listing = await branches.list(user, owner, repo, paging);
      return { items: toApiBranches(listing, context), total: listing.total };
    },
  );

  addTool(
    kit,
    'get_branch',
    {
      title: 'Get a branch',
      description:
        'One branch by its short name (slashes allowed, e.g. "feature/login"), as a Gitea ' +
        'Branch record. Only branches count: a tag or a commit id of that name is not found.',
      input: z.strictObject({
        ...repoArgs,
        branch: z.string().min(1).max(1000).describe('Short branch name, without refs/heads/'),
      }),
      effect: 'read',
    },
    async ({ owner, repo, branch }, user) => {
      const [api] = toApiBranches(await branches.get(user, owner, repo, branch), context);
      if (!api) throw new Error('branch listing without its branch');
      return recordResult(api);
    },
  );
}
