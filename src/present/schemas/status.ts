import type { Static } from 'typebox';
import { ApiRepositorySchema } from './repo.ts';
import { Type } from './type.ts';
import { ApiUserSchema } from './user.ts';

const NullableUrl = Type.Union([Type.String(), Type.Null()]);

export const CommitStatusStateSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('success'),
  Type.Literal('error'),
  Type.Literal('failure'),
  Type.Literal('warning'),
]);

/** Gitea's CommitStatus: the state travels under `status` here, not `state`. */
export const ApiCommitStatusSchema = Type.Object({
  id: Type.Integer(),
  status: CommitStatusStateSchema,
  target_url: Type.String(),
  description: Type.String(),
  url: NullableUrl,
  context: Type.String(),
  creator: ApiUserSchema,
  created_at: Type.String(),
  updated_at: Type.String(),
});

/** Gitea's CombinedStatus; Kiln's is always an all-clear with no statuses. */
export const ApiCombinedStatusSchema = Type.Object({
  state: CommitStatusStateSchema,
  sha: Type.String(),
  total_count: Type.Integer(),
  statuses: Type.Array(ApiCommitStatusSchema),
  repository: ApiRepositorySchema,
  commit_url: NullableUrl,
  url: NullableUrl,
});

/** Gitea's CreateStatusOption. */
export const CreateStatusOptionSchema = Type.Object({
  state: CommitStatusStateSchema,
  target_url: Type.Optional(Type.String({ maxLength: 2048 })),
  description: Type.Optional(Type.String({ maxLength: 1024 })),
  context: Type.Optional(Type.String({ maxLength: 255 })),
});

export type ApiCommitStatus = Static<typeof ApiCommitStatusSchema>;
export type ApiCombinedStatus = Static<typeof ApiCombinedStatusSchema>;
export type CreateStatusOption = Static<typeof CreateStatusOptionSchema>;
