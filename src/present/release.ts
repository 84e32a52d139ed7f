import type { Release } from '../domain/releases/release.types.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { Account } from '../domain/users/user.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { repoPathOf } from './branch.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import type { ApiRelease } from './schemas/release.ts';
import { toApiUser } from './user.ts';

/** Who a release shows as author once the publishing account is gone (Gitea's "Ghost"). */
const GHOST: Account = {
  id: '00000000-0000-0000-0000-000000000000',
  handle: 'Ghost',
  kind: 'user',
  email: null,
  fullName: '',
  description: '',
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

/** A ref name in a URL path: each segment encoded, the slashes kept. */
export function refPath(ref: string): string {
  return ref.split('/').map(encodeURIComponent).join('/');
}

/**
 * Gitea's Release. Archive URLs point at Kiln's own source archives; there are no assets and no
 * drafts, and `published_at` is the creation time, as in Gitea 1.22.
 */
export function toApiRelease(
  release: Release,
  repo: Repository,
  context: ConvertContext,
): ApiRelease {
  const id = foldId(release.id);
  const repoPath = repoPathOf(repo);
  const tag = refPath(release.tagName);
  const apiUrl = urlFrom(context, `/api/v1/repos/${repoPath}/releases/${id}`);
  const created = rfc3339(release.createdAt);
  return {
    id,
    tag_name: release.tagName,
    target_commitish: release.targetCommitish,
    name: release.name,
    body: release.body,
    url: apiUrl,
    html_url: urlFrom(context, `/repos/${repoPath}/releases/tag/${tag}`),
    tarball_url: urlFrom(context, `/repos/${repoPath}/archive/${tag}.tar.gz`),
    zipball_url: urlFrom(context, `/repos/${repoPath}/archive/${tag}.zip`),
    upload_url: apiUrl === null ? null : `${apiUrl}/assets`,
    draft: false,
    prerelease: release.prerelease,
    created_at: created,
    published_at: created,
    author: toApiUser(release.author ?? GHOST, context),
    assets: [],
  };
}
