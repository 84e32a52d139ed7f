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

const Flag = Type.Optional(Type.Boolean());
const NameList = () =>
  Type.Optional(
    Type.Union([Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }), Type.Null()]),
  );

/** Gitea's EditBranchProtectionOption: every key optional; absent keys stay as they are. */
const editKeys = {
  enable_push: Flag,
  enable_push_whitelist: Flag,
  push_whitelist_usernames: NameList(),
  push_whitelist_teams: NameList(),
  push_whitelist_deploy_keys: Flag,
  enable_merge_whitelist: Flag,
  merge_whitelist_usernames: NameList(),
  merge_whitelist_teams: NameList(),
  enable_status_check: Flag,
  status_check_contexts: NameList(),
  required_approvals: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  enable_approvals_whitelist: Flag,
  approvals_whitelist_username: NameList(),
  approvals_whitelist_teams: NameList(),
  block_on_rejected_reviews: Flag,
  block_on_official_review_requests: Flag,
  block_on_outdated_branch: Flag,
  dismiss_stale_approvals: Flag,
  ignore_stale_approvals: Flag,
  require_signed_commits: Flag,
  protected_file_patterns: Type.Optional(Type.String({ maxLength: 4096 })),
  unprotected_file_patterns: Type.Optional(Type.String({ maxLength: 4096 })),
};

export const EditBranchProtectionOptionSchema = Type.Object(editKeys, {
  additionalProperties: true,
});
export type ApiEditBranchProtectionOption = Static<typeof EditBranchProtectionOptionSchema>;

/**
 * Gitea's CreateBranchProtectionOption: the rule's name (`rule_name`, a branch or a glob such
 * as `release/*`, or the deprecated `branch_name`) and every edit option. Signed commits and
 * file patterns are stored and shown but not enforced.
 */
export const CreateBranchProtectionOptionSchema = Type.Object(
  {
    rule_name: Type.Optional(Type.String({ maxLength: 255 })),
    branch_name: Type.Optional(Type.String({ maxLength: 255 })),
    ...editKeys,
  },
  { additionalProperties: true },
);
export type ApiCreateBranchProtectionOption = Static<typeof CreateBranchProtectionOptionSchema>;
