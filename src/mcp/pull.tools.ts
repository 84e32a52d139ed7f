import { z } from 'zod';
import type { PullInContext } from '../domain/pulls/pull.service.ts';
import { PULL_SORTS } from '../domain/pulls/pull.types.ts';
import type { User } from '../domain/users/user.types.ts';
import {
  addListTool,
  addTool,
  pullArgs,
  recordResult,
  repoArgs,
  type ToolKit,
} from './tool-kit.ts';

const title = z.string().trim().min(1).max(255);
const body = z.string().max(1_000_000);

/** Pull requests: list, read, open, edit (close, reopen) and merge. */
export function registerPullTools(kit: ToolKit<'pulls' | 'pullMerges'>): void {
  const { services, context } = kit;
  const { pulls, pullMerges } = services;
  const show = async (user: User, found: PullInContext) =>
    recordResult(await kit.pullViews.one(user, found, context));

  addListTool(
    kit,
    'list_pull_requests',
    {
      title: 'List pull requests',
      description:
        "A repository's pull requests as Gitea PullRequest records (`number`, `title`, `body`, " +
        '`state`, `merged`, `head` and `base` with ref and sha, `user`). `state` is open, closed ' +
        'or all (default all, as the REST API); `sort` defaults to newest; `poster` keeps ' +
        "one author's. Paginated: `page`, `limit` (at most 50); the result has `items`, `total` " +
        'and `next_page`.',
      args: {
        ...repoArgs,
        state: z.enum(['open', 'closed', 'all']).optional().describe('Default all'),
        sort: z.enum(PULL_SORTS).optional().describe('Order; default newest'),
        poster: z.string().min(1).max(100).optional().describe('Handle of the author'),
      },
    },
    async ({ owner, repo, state, sort, poster }, paging, user) => {
      const filter = {
        state: state ?? 'all',
        sort: sort ?? 'newest',
        ...(poster ? { poster } : {}),
      };
      const { items, total } = await pulls.list(user, owner, repo, filter, paging);
      return { items: await kit.pullViews.many(user, items, context), total };
    },
  );

  addTool(
    kit,
    'get_pull_request',
    {
      title: 'Get a pull request',
      description:
        'One pull request by number, as a Gitea PullRequest record. `head.sha` is the live tip ' +
        'of the head branch while open; `mergeable` is false when the pull is closed or its ' +
        'head conflicts with the base branch (merge_pull_request refuses a real conflict).',
      input: z.strictObject(pullArgs),
      effect: 'read',
    },
    async ({ owner, repo, number }, user) => show(user, await pulls.get(user, owner, repo, number)),
  );

  addTool(
    kit,
    'create_pull_request',
    {
      title: 'Open a pull request',
      description:
        'Opens a pull request asking to merge `head` into `base` of owner/repo. `head` is a ' +
        'branch of the same repository, or "forkowner:branch" for a branch of a fork. Both ' +
        'branches must exist and differ; one open pull per head and base. Returns the new ' +
        'Gitea PullRequest record.',
      input: z.strictObject({
        ...repoArgs,
        title: title.describe('Title of the pull request'),
        head: z.string().min(1).max(512).describe('Branch with the changes, or "owner:branch"'),
        base: z.string().min(1).max(255).describe('Branch to merge into, e.g. "main"'),
        body: body.optional().describe('Description, in Markdown'),
      }),
      effect: 'add',
    },
    async ({ owner, repo, ...input }, user) =>
      show(
        user,
        await pulls.create(user, owner, repo, {
          title: input.title,
          head: input.head,
          base: input.base,
          ...(input.body !== undefined ? { body: input.body } : {}),
        }),
      ),
  );

  addTool(
    kit,
    'update_pull_request',
    {
      title: 'Edit, close or reopen a pull request',
      description:
        'Changes the title and/or body, or the state: "closed" closes the pull, "open" reopens ' +
        'it (a merged pull cannot be reopened). Only its author or someone with write access ' +
        'may. Fields left out stay as they are. Returns the updated Gitea PullRequest record.',
      input: z.strictObject({
        ...pullArgs,
        title: title.optional().describe('New title'),
        body: body.optional().describe('New description, in Markdown'),
        state: z.enum(['open', 'closed']).optional().describe('"closed" closes, "open" reopens'),
      }),
      effect: 'change',
    },
    async ({ owner, repo, number, ...change }, user) =>
      show(
        user,
        await pulls.update(user, owner, repo, number, {
          ...(change.title !== undefined ? { title: change.title } : {}),
          ...(change.body !== undefined ? { body: change.body } : {}),
          ...(change.state !== undefined ? { state: change.state } : {}),
        }),
      ),
  );

  addTool(
    kit,
    'merge_pull_request',
    {
      title: 'Merge a pull request',
      description:
        'Merges an open pull request into its base branch with a merge commit (the only ' +
        'strategy Kiln has); needs write access to the base repository. A real conflict is ' +
        'refused and changes nothing. Returns the pull request afterwards: `merged` true, ' +
        '`state` closed, `merge_commit_sha` set.',
      input: z.strictObject(pullArgs),
      effect: 'change',
    },
    async ({ owner, repo, number }, user) => {
      await pullMerges.merge(user, owner, repo, number);
      return show(user, await pulls.get(user, owner, repo, number));
    },
  );
}
