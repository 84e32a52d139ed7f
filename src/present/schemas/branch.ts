import type { Static } from 'typebox';
import { Type } from './type.ts';

const NullableUrl = Type.Union([Type.String(), Type.Null()]);

/** Gitea's PayloadUser: a commit ident, with the matching account's handle or "". */
export const ApiPayloadUserSchema = Type.Object({
  name: Type.String(),
  email: Type.String(),
  username: Type.String(),
});

/** Gitea's PayloadCommitVerification; Kiln verifies no signatures. */
export const ApiPayloadCommitVerificationSchema = Type.Object({
  verified: Type.Boolean(),
  reason: Type.String(),
  signature: Type.String(),
  signer: Type.Union([ApiPayloadUserSchema, Type.Null()]),
  payload: Type.String(),
});

const FileList = Type.Union([Type.Array(Type.String()), Type.Null()]);

/** Gitea's PayloadCommit; the file lists are null in branch responses, as in Gitea. */
export const ApiPayloadCommitSchema = Type.Object({
  id: Type.String(),
  message: Type.String(),
  url: NullableUrl,
  author: ApiPayloadUserSchema,
  committer: ApiPayloadUserSchema,
  verification: ApiPayloadCommitVerificationSchema,
  timestamp: Type.String(),
  added: FileList,
  removed: FileList,
  modified: FileList,
});

/** Gitea's Branch, every key it emits. */
export const ApiBranchSchema = Type.Object({
  name: Type.String(),
  commit: ApiPayloadCommitSchema,
  protected: Type.Boolean(),
  required_approvals: Type.Integer(),
  enable_status_check: Type.Boolean(),
  status_check_contexts: Type.Array(Type.String()),
  user_can_push: Type.Boolean(),
  user_can_merge: Type.Boolean(),
  effective_branch_protection_name: Type.String(),
});

export type ApiPayloadUser = Static<typeof ApiPayloadUserSchema>;
export type ApiPayloadCommit = Static<typeof ApiPayloadCommitSchema>;
export type ApiBranch = Static<typeof ApiBranchSchema>;
