/** Gitea's zero time for dates a repository does not have. */
export const UNIX_EPOCH = '1970-01-01T00:00:00Z';

/**
 * The fields of every Repository object that say what Kiln offers rather than anything about
 * one repository (a parent on another server shows them too).
 */
export const KILN_REPO_FEATURES = {
  // No issue tracker: has_issues false keeps Renovate and other clients off the issue API.
  has_issues: false,
  has_wiki: false,
  has_pull_requests: true,
  has_projects: false,
  projects_mode: 'repo',
  has_releases: true,
  has_packages: false,
  has_actions: false,
  ignore_whitespace_conflicts: false,
  // Kiln merges with merge commits only, and says so.
  allow_merge_commits: true,
  allow_rebase: false,
  allow_rebase_explicit: false,
  allow_squash_merge: false,
  allow_fast_forward_only_merge: false,
  allow_rebase_update: false,
  default_delete_branch_after_merge: false,
  default_merge_style: 'merge',
  default_allow_maintainer_edit: false,
  avatar_url: '',
  internal: false,
  mirror_interval: '',
  object_format_name: 'sha1',
  mirror_updated: UNIX_EPOCH,
} as const;
