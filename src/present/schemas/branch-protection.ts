import type { Static } from 'typebox';
import { Type } from './type.ts';

const Names = Type.Array(Type.String());

/** Gitea 1.22's BranchProtection, every key it emits. */
export const ApiBranchProtectionSchema = Type.Object({
  branch_name: Type.String(),
  rule_name: Type.String(),
  enable_push: Type.Boolean(),
  enable_push_whitelist: Type.Boolean(),
  push_whitelist_usernames: Names,
  push_whitelist_teams: Names,
  push_whitelist_deploy_keys: Type.Boolean(),
  enable_merge_whitelist: Type.Boolean(),
  merge_whitelist_usernames: Names,
  merge_whitelist_teams: Names,
  enable_status_check: Type.Boolean(),
  status_check_contexts: Names,
  required_approvals: Type.Integer(),
  enable_approvals_whitelist: Type.Boolean(),
  approvals_whitelist_username: Names,
  approvals_whitelist_teams: Names,
  block_on_rejected_reviews: Type.Boolean(),
  block_on_official_review_requests: Type.Boolean(),
  block_on_outdated_branch: Type.Boolean(),
  dismiss_stale_approvals: Type.Boolean(),
  ignore_stale_approvals: Type.Boolean(),
  require_signed_commits: Type.Boolean(),
  protected_file_patterns: Type.String(),
  unprotected_file_patterns: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type ApiBranchProtection = Static<typeof ApiBranchProtectionSchema>;

/**
 * Gitea's CreateBranchProtectionOption. Kiln reads the name (`rule_name`, or the deprecated
 * `branch_name`) and the required checks (`enable_status_check`, `status_check_contexts`); the
 * other options are accepted, so stock clients that send them all work, and ignored: a
 * protected branch always refuses force pushes and deletion, and nothing else.
 */
export const CreateBranchProtectionOptionSchema = Type.Object(
  {
    rule_name: Type.Optional(Type.String({ maxLength: 255 })),
    branch_name: Type.Optional(Type.String({ maxLength: 255 })),
    enable_status_check: Type.Optional(Type.Boolean()),
    status_check_contexts: Type.Optional(StatusCheckContexts()),
  },
  { additionalProperties: true },
);
export type ApiCreateBranchProtectionOption = Static<typeof CreateBranchProtectionOptionSchema>;

/** Gitea's EditBranchProtectionOption, read as the create option is; absent keys stay. */
export const EditBranchProtectionOptionSchema = Type.Object(
  {
    enable_status_check: Type.Optional(Type.Boolean()),
    status_check_contexts: Type.Optional(StatusCheckContexts()),
  },
  { additionalProperties: true },
);

/** Glob patterns of required checks; `null` (Go's empty slice) reads as none. */
function StatusCheckContexts() {
  return Type.Union([Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }), Type.Null()]);
}
