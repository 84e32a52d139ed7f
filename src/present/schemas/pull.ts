import type { Static } from 'typebox';
import { ApiRepositorySchema } from './repo.ts';
import { Type } from './type.ts';
import { ApiUserSchema } from './user.ts';

const Url = Type.Union([Type.String(), Type.Null()]);
const NullableTime = Type.Union([Type.String(), Type.Null()]);

export const ApiPRBranchInfoSchema = Type.Object({
  label: Type.String(),
  ref: Type.String(),
  sha: Type.String(),
  repo_id: Type.Integer(),
  repo: Type.Union([ApiRepositorySchema, Type.Null()]),
});

/** Gitea's PullRequest: every key 1.22 emits. */
export const ApiPullRequestSchema = Type.Object({
  id: Type.Integer(),
  url: Url,
  number: Type.Integer(),
  user: ApiUserSchema,
  title: Type.String(),
  body: Type.String(),
  labels: Type.Array(Type.Unknown()),
  milestone: Type.Null(),
  assignee: Type.Union([ApiUserSchema, Type.Null()]),
  assignees: Type.Union([Type.Array(ApiUserSchema), Type.Null()]),
  requested_reviewers: Type.Union([Type.Array(ApiUserSchema), Type.Null()]),
  state: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  draft: Type.Boolean(),
  is_locked: Type.Boolean(),
  comments: Type.Integer(),
  review_comments: Type.Integer(),
  additions: Type.Integer(),
  deletions: Type.Integer(),
  changed_files: Type.Integer(),
  html_url: Url,
  diff_url: Url,
  patch_url: Url,
  mergeable: Type.Boolean(),
  merged: Type.Boolean(),
  merged_at: NullableTime,
  merge_commit_sha: Type.Union([Type.String(), Type.Null()]),
  merged_by: Type.Union([ApiUserSchema, Type.Null()]),
  allow_maintainer_edit: Type.Boolean(),
  base: ApiPRBranchInfoSchema,
  head: ApiPRBranchInfoSchema,
  merge_base: Type.String(),
  due_date: NullableTime,
  created_at: Type.String(),
  updated_at: Type.String(),
  closed_at: NullableTime,
  pin_order: Type.Integer(),
});

export type ApiPullRequest = Static<typeof ApiPullRequestSchema>;
export type ApiPRBranchInfo = Static<typeof ApiPRBranchInfoSchema>;

export const CreatePullRequestOptionSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255 }),
    body: Type.Optional(Type.String()),
    head: Type.String({ minLength: 1, maxLength: 512 }),
    base: Type.String({ minLength: 1, maxLength: 255 }),
    assignee: Type.Optional(Type.String()),
    assignees: Type.Optional(Type.Array(Type.String())),
    labels: Type.Optional(Type.Array(Type.Integer())),
    milestone: Type.Optional(Type.Integer()),
    due_date: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);

export const EditPullRequestOptionSchema = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 255 })),
    body: Type.Optional(Type.String()),
    state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
    base: Type.Optional(Type.String()),
    assignee: Type.Optional(Type.String()),
    assignees: Type.Optional(Type.Array(Type.String())),
    labels: Type.Optional(Type.Array(Type.Integer())),
    milestone: Type.Optional(Type.Integer()),
    allow_maintainer_edit: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

/** Accepted for compatibility; the strategy it names is ignored (Kiln always merges). */
export const MergePullRequestOptionSchema = Type.Union([
  Type.Object(
    {
      Do: Type.Optional(Type.String()),
      MergeTitleField: Type.Optional(Type.String()),
      MergeMessageField: Type.Optional(Type.String()),
      head_commit_id: Type.Optional(Type.String()),
      /** A repository admin merges past what the branch protection still waits for. */
      force_merge: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: true },
  ),
  Type.Null(),
]);

export const ApiPullReviewCommentSchema = Type.Object({
  id: Type.Integer(),
  body: Type.String(),
  path: Type.String(),
  line: Type.Union([Type.Integer(), Type.Null()]),
  old_line: Type.Union([Type.Integer(), Type.Null()]),
  side: Type.Union([Type.Literal('RIGHT'), Type.Literal('LEFT')]),
  commit_id: Type.String(),
  original_commit_id: Type.String(),
  diff_hunk: Type.String(),
  in_reply_to_id: Type.Union([Type.Integer(), Type.Null()]),
  user: ApiUserSchema,
  created_at: Type.String(),
  updated_at: Type.String(),
  html_url: Url,
  pull_request_url: Url,
});

export type ApiPullReviewComment = Static<typeof ApiPullReviewCommentSchema>;

export const CreateReviewCommentOptionSchema = Type.Object(
  {
    body: Type.String({ minLength: 1 }),
    path: Type.Optional(Type.String({ maxLength: 4096 })),
    line: Type.Optional(Type.Integer({ minimum: 1 })),
    old_line: Type.Optional(Type.Integer({ minimum: 1 })),
    side: Type.Optional(Type.Union([Type.Literal('RIGHT'), Type.Literal('LEFT')])),
    commit_id: Type.Optional(Type.String({ maxLength: 64 })),
    in_reply_to_id: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: true },
);
