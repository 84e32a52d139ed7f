import { z } from 'zod';
import type { VisibleRelease } from '../domain/releases/release.service.ts';
import { toApiRelease } from '../present/release.ts';
import { addListTool, addTool, recordResult, repoArgs, type ToolKit } from './tool-kit.ts';

/** `list_releases`, `get_release`, `get_latest_release` and `create_release`. */
export function registerReleaseTools(kit: ToolKit<'releases'>): void {
  const { services, context } = kit;
  const { releases } = services;
  const show = ({ visible, release }: VisibleRelease) =>
    recordResult(toApiRelease(release, visible.repo, context));
  const tagArg = z.string().min(1).max(255).describe('The release\'s git tag, e.g. "v1.2.0"');

  addListTool(
    kit,
    'list_releases',
    {
      title: 'List releases',
      description:
        "A repository's releases, newest first, as Gitea Release records: `tag_name`, " +
        '`target_commitish`, `name`, `body` (release notes), `prerelease`, `created_at`, ' +
        '`author`. There are no drafts and no assets. Paginated: `page`, `limit` (at most 50); ' +
        'the result has `items`, `total` and `next_page`.',
      args: repoArgs,
    },
    async ({ owner, repo }, paging, user) => {
      const { visible, items, total } = await releases.list(user, owner, repo, paging);
      return { items: items.map((release) => toApiRelease(release, visible.repo, context)), total };
    },
  );

  addTool(
    kit,
    'get_release',
    {
      title: 'Get a release by tag',
      description: 'The release of one tag, as a Gitea Release record; not found when none.',
      input: z.strictObject({ ...repoArgs, tag: tagArg }),
      effect: 'read',
    },
    async ({ owner, repo, tag }, user) => show(await releases.get(user, owner, repo, { tag })),
  );

  addTool(
    kit,
    'get_latest_release',
    {
      title: 'Get the latest release',
      description:
        'The newest release that is not a prerelease, as a Gitea Release record; not found ' +
        'when the repository has none.',
      input: z.strictObject(repoArgs),
      effect: 'read',
    },
    async ({ owner, repo }, user) => show(await releases.latest(user, owner, repo)),
  );

  addTool(
    kit,
    'create_release',
    {
      title: 'Publish a release',
      description:
        'Publishes a release of `tag_name` (needs write access). When the tag does not exist ' +
        'yet it is created at `target_commitish` (a branch or commit id; default: the default ' +
        'branch). `name` defaults to the tag. Returns the new Gitea Release record. A second ' +
        'release of the same tag is a conflict.',
      input: z.strictObject({
        ...repoArgs,
        tag_name: tagArg,
        target_commitish: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe('Branch or commit to tag when the tag is new; default branch when omitted'),
        name: z.string().max(255).optional().describe('Title of the release; the tag if omitted'),
        body: z.string().max(1_000_000).optional().describe('Release notes, in Markdown'),
        prerelease: z.boolean().optional().describe('Mark as a prerelease; default false'),
      }),
      effect: 'add',
    },
    async ({ owner, repo, ...input }, user) =>
      show(
        await releases.create(user, owner, repo, {
          tagName: input.tag_name,
          targetCommitish: input.target_commitish,
          name: input.name,
          body: input.body,
          prerelease: input.prerelease,
        }),
      ),
  );
}
