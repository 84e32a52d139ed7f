import type { Static } from 'typebox';
import { Type } from './type.ts';
import { ApiUserSchema } from './user.ts';

/**
 * Gitea's `Comment`: what `/repos/{owner}/{repo}/issues/comments/{id}` answers. Kiln has no
 * issues, so every comment served there is a line-review comment of a pull request, which
 * Gitea serves at the same path (its review comments are issue comments).
 */
export const ApiCommentSchema = Type.Object({
  id: Type.Integer(),
  body: Type.String(),
  user: ApiUserSchema,
  html_url: Type.String(),
  /** Empty for a comment on a pull request, as in Gitea. */
  issue_url: Type.String(),
  /** The pull request's page. */
  pull_request_url: Type.String(),
  original_author: Type.String(),
  original_author_id: Type.Integer(),
  assets: Type.Array(Type.Unknown()),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export type ApiComment = Static<typeof ApiCommentSchema>;

/** Gitea's `EditIssueCommentOption`. */
export const EditIssueCommentOptionSchema = Type.Object({ body: Type.String({ minLength: 1 }) });
