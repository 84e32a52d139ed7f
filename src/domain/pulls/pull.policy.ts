import { atLeast, type RepoAccess } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';

/**
 * Who may do what with a pull request, given the caller's access to its base repository. One
 * place for every edge (REST, pages, MCP) and the services that enforce it. As in Gitea:
 * - writers of the base merge; reading is not enough;
 * - the author and writers edit the title and body, close and reopen;
 * - anyone who can read the base comments on the diff;
 * - a review comment is edited or deleted by its author or a writer of the base (Gitea lets
 *   whoever may write to pulls moderate their comments);
 * - a review thread is resolved and reopened by the pull's author or a writer.
 */

/** Whether the caller may merge the pull into its base. */
export function mayMergePull(access: RepoAccess): boolean {
  return atLeast(access.level, 'write');
}

/** Whether the caller may edit the pull's title and body, and close or reopen it. */
export function mayEditPull(
  viewer: Pick<User, 'id'> | undefined,
  access: RepoAccess,
  pull: { readonly authorId: string },
): boolean {
  return (viewer !== undefined && viewer.id === pull.authorId) || atLeast(access.level, 'write');
}

/** Whether the signed-in caller may comment on the pull's diff. */
export function mayCommentOnPull(
  viewer: Pick<User, 'id'> | undefined,
  access: RepoAccess,
): boolean {
  return viewer !== undefined && atLeast(access.level, 'read');
}

/** Whether the caller may change or delete a review comment of a pull of this base. */
export function mayChangeReviewComment(
  viewer: Pick<User, 'id'> | undefined,
  access: RepoAccess,
  comment: { readonly authorId: string },
): boolean {
  if (viewer === undefined) return false;
  return viewer.id === comment.authorId || atLeast(access.level, 'write');
}

/** Whether the caller may mark a review thread of the pull resolved, or open it again. */
export function mayResolveReviewThread(
  viewer: Pick<User, 'id'> | undefined,
  access: RepoAccess,
  pull: { readonly authorId: string },
): boolean {
  return viewer !== undefined && mayEditPull(viewer, access, pull);
}

/** What the pull's page offers the viewer: merging, and closing or reopening. */
export function pullPermissions(
  viewer: Pick<User, 'id'> | undefined,
  access: RepoAccess,
  pull: { readonly authorId: string },
): { readonly merge: boolean; readonly toggle: boolean } {
  return { merge: mayMergePull(access), toggle: mayEditPull(viewer, access, pull) };
}
