import type { Generated } from 'kysely';

/**
 * Row shapes as stored. Times are epoch milliseconds (int8 on PostgreSQL, integer on SQLite);
 * booleans come back as 0/1 from SQLite and true/false from PostgreSQL, so stores read them with
 * `Boolean(...)`. Keys are UUID strings.
 */
export type UsersTable = {
  id: string;
  handle: string;
  handle_lower: string;
  kind: 'user' | 'org';
  email: string | null;
  email_lower: string | null;
  full_name: string;
  description: string;
  password_hash: string | null;
  created_at: number;
  updated_at: number;
  /** When an operator disabled this person; null (or absent on insert) while in use. */
  disabled_at?: number | null;
  /** An organisation's website; '' for people and when unset. */
  website?: string;
  /** An organisation's visibility: a private one is shown to its members and admins only. */
  visibility?: 'public' | 'private';
  /** An instance administrator made so from the admin pages (see AdminPolicy). */
  is_admin?: boolean | number;
};

export type OrgMembersTable = {
  org_id: string;
  user_id: string;
  role: 'owner' | 'member';
  created_at: number;
};

/** Teams of organisations (migration 0037); the Owners team's members are `org_members` owners. */
export type TeamsTable = {
  id: string;
  wire_id: number;
  org_id: string;
  name: string;
  name_lower: string;
  description: Generated<string>;
  permission: 'read' | 'write' | 'admin' | 'owner';
  includes_all_repositories: Generated<boolean | number>;
  can_create_org_repo: Generated<boolean | number>;
  created_at: number;
};

export type TeamMembersTable = { team_id: string; user_id: string; created_at: number };

export type TeamReposTable = { team_id: string; repo_id: string };

export type AccessTokensTable = {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  /** The last characters of the token, so people can tell their tokens apart. */
  token_last_eight: string;
  created_at: number;
  last_used_at: number | null;
  /** Gitea's normalized scope names, comma-separated (`all`, `write:repository,read:user`). */
  scopes: string;
  /** Epoch milliseconds after which the token is refused; null when it never expires. */
  expires_at: number | null;
};

export type SessionsTable = {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  /** The browser's User-Agent at sign-in, at most 300 characters; '' when it sent none. */
  user_agent: Generated<string>;
};

/** Recent failed sign-ins per login name or client address (both keys hashed). */
export type LoginThrottleTable = {
  key_hash: string;
  failures: number;
  window_start: number;
  /** The length of the current (or last) lock; doubles with each failure past the limit. */
  lock_ms: number;
  locked_until: number;
};

/** One lease per repository for background maintenance (migration 0009). */
export type RepoHousekeepingTable = {
  /** The repository's directory, `owner/name` lowercased. */
  repo_key: string;
  /** The process that holds or last held the lease. */
  holder: string;
  /** Epoch ms; the lease is free from then on. */
  lease_until: number;
  /** Epoch ms of the last full (pruning) repack; 0 never. */
  last_full_at: number;
};

/** What one maintenance run did. */
export type HousekeepingRunsTable = {
  id: string;
  repo_key: string;
  holder: string;
  kind: string;
  outcome: string;
  started_at: number;
  finished_at: number;
  packs_before: number;
  loose_before: number;
  packs_after: number;
  loose_after: number;
  error: string | null;
};

export type SchemaMigrationsTable = {
  name: string;
  applied_at: Generated<number>;
};

export type RepositoriesTable = {
  id: string;
  owner_id: string;
  name: string;
  name_lower: string;
  description: string;
  private: boolean | number;
  /** The repository this one was forked from; null when not a fork or the parent is gone. */
  parent_id: string | null;
  /** The last pull request number handed out in this repository. */
  pull_counter: number;
  created_at: number;
  updated_at: number;
};

/** Kept by triggers on `repositories` (migration 0007); never written by the application. */
export type OwnerRepoCountsTable = {
  owner_id: string;
  repositories: number;
};

export type CollaboratorsTable = {
  repo_id: string;
  user_id: string;
  permission: 'read' | 'write' | 'admin';
  created_at: number;
};

export type ProtectedBranchesTable = {
  repo_id: string;
  branch: string;
  created_at: number;
  /** Merging into the branch waits until its required checks have succeeded. */
  enable_status_check: Generated<boolean | number>;
  /** JSON array of the required checks' glob patterns (Gitea's `status_check_contexts`). */
  status_check_contexts: Generated<string>;
  /** JSON object of the review, push and merge rules (see `BranchRuleSettings`). */
  settings: Generated<string>;
  updated_at: number | null;
};

/** Where a registration token or a runner may serve: the whole instance, one repository or org. */
export type RunnerScopeKind = 'instance' | 'repository' | 'organisation';

export type RunnerRegistrationTokensTable = {
  id: string;
  token_hash: string;
  scope_kind: RunnerScopeKind;
  /** Set exactly when scope_kind is 'repository'. */
  scope_repo_id: string | null;
  /** Set exactly when scope_kind is 'organisation'. */
  scope_org_id: string | null;
  /** Null when made from the command line, or when its creator is gone. */
  created_by: string | null;
  created_at: number;
  last_used_at: number | null;
};

export type RunnersTable = {
  id: string;
  uuid: string;
  token_hash: string;
  name: string;
  /** JSON array of label names. */
  labels: string;
  version: string;
  /** JSON array of capability flags (`cancelling`). */
  capabilities: string;
  status: 'idle' | 'active' | 'offline';
  ephemeral: boolean | number;
  scope_kind: RunnerScopeKind;
  scope_repo_id: string | null;
  scope_org_id: string | null;
  created_at: number;
  last_seen_at: number;
};

/** A run's aggregate status (job-status.ts), upper-cased; PENDING is Gitea's Waiting. */
export type WorkflowRunStatus =
  | 'PENDING'
  | 'BLOCKED'
  | 'RUNNING'
  | 'SUCCESS'
  | 'FAILURE'
  | 'CANCELLED'
  | 'SKIPPED';

export type WorkflowRunsTable = {
  id: string;
  repo_id: string;
  number: number;
  workflow_name: string;
  workflow_file: string;
  event: string;
  ref: string;
  sha: string;
  triggered_by: string | null;
  status: WorkflowRunStatus;
  created_at: number;
  started_at: number | null;
  stopped_at: number | null;
  updated_at: number;
  /** First line of the head commit's message. */
  title: Generated<string>;
  /** The event as a webhook would carry it (JSON). */
  event_payload: Generated<string>;
  /** Login of the user who triggered the run. */
  actor: Generated<string>;
  head_ref: Generated<string>;
  base_ref: Generated<string>;
  /** A pull request from a fork: its jobs get no secrets besides the task token. */
  fork_pull: Generated<boolean | number>;
  /** Why the run could not start, e.g. a workflow that does not parse. */
  error: string | null;
  concurrency_group: string | null;
  /** Waits for the unfinished run of its `concurrency` group to end; its jobs stay blocked. */
  concurrency_queued: Generated<boolean | number>;
  /** The pull request a `pull_request` run was made for (`pull_requests.id`), else null. */
  pull_id: string | null;
  /** Made for a pull from a fork by someone who cannot write: waits for a writer's approval. */
  needs_approval: Generated<boolean | number>;
  /** Who approved it (a user id) and when; null while it waits or when it never had to. */
  approved_by: string | null;
  approved_at: number | null;
  /** 1, then one more per re-run. */
  attempt: Generated<number>;
  /** JSON object of the workflow calls its jobs were expanded from (call-frames.ts). */
  calls: Generated<string>;
};

/** An entry of a repository's CI cache (migration 0030). */
export type CiCachesTable = {
  id: Generated<number>;
  repo_id: string;
  /** The ref whose runs wrote it (`refs/heads/main`, `refs/pull/3/head`). */
  scope: string;
  cache_key: string;
  key_lower: string;
  version: string;
  status: 'reserved' | 'ready';
  size: Generated<number>;
  /** Key of the HMAC that signs this entry's download links (hex). */
  link_secret: string;
  created_at: number;
  updated_at: number;
  last_accessed_at: number;
};

/** Per pull request, the people whose runs of it a writer approved (fork-approval.ts). */
export type CiPullApprovalsTable = {
  pull_id: string;
  actor_id: string;
  approved_by: string;
  approved_at: number;
};

export type CiRunCountersTable = {
  repo_id: string;
  last_number: number;
};

/** A job's status (job-status.ts); `pending` is Gitea's Waiting, `blocked` waits for needs. */
export type CiTaskStatus =
  | 'blocked'
  | 'pending'
  | 'running'
  | 'success'
  | 'failure'
  | 'cancelled'
  | 'skipped';

export type CiTasksTable = {
  /** Autoincrementing int64, handed to runners; never reused. */
  id: Generated<number>;
  run_id: string;
  name: string;
  /** JSON array of labels; empty means any runner. */
  runs_on: string;
  /** JSON array of the job keys this task waits for. */
  needs: string;
  /** JSON object of output name → value. */
  outputs: string;
  job_key: string;
  payload: string;
  runner_id: string | null;
  status: CiTaskStatus;
  /** Durable log rows received: where a log upload resumes. */
  log_rows: number;
  deadline_at: number | null;
  created_at: number;
  started_at: number | null;
  stopped_at: number | null;
  /** The run attempt the job last ran in; 0 until the job is first re-run (read as 1). */
  attempt: Generated<number>;
  /** The job has an `if:`: it runs (the runner decides) even when a job it needs failed. */
  has_if: Generated<boolean | number>;
  /** JSON array of the workflow's step names, for the step rows made at claim time. */
  step_names: Generated<string>;
  log_sealed: Generated<boolean | number>;
  /** Bytes of the stored log, as last recorded (a megabyte at a time while it grows). */
  log_bytes: Generated<number>;
  /** The log reached a cap: rows sent since are acknowledged and dropped. */
  log_truncated: Generated<boolean | number>;
  /** Last change of status, for the abandoned-job sweep. */
  updated_at: Generated<number>;
  /** SHA-256 (hex) of the task token while the task runs; null once it ends. */
  token_hash: string | null;
  /** Last UpdateTask from the runner, for the zombie sweep. */
  heartbeat_at: number | null;
  /** The job's evaluated `concurrency` group (per repository), or null. */
  concurrency_group: Generated<string | null>;
  /** The job's `cancel-in-progress`: admitting it cancels the group's running job too. */
  concurrency_cancel: Generated<boolean | number>;
  /** Blocked waiting for its `concurrency` group to free up (not for its `needs`). */
  concurrency_queued: Generated<boolean | number>;
  /** JSON object of the job's token permissions (permissions.ts); null is `write-all`. */
  permissions: Generated<string | null>;
};

export type CiTaskStepsTable = {
  task_id: number;
  step_index: number;
  name: string;
  status: CiTaskStatus;
  log_index: number;
  log_length: number;
  started_at: number | null;
  stopped_at: number | null;
};

/** An `::error`/`::warning`/`::notice` line of a job's log, keyed by its row. */
export type CiAnnotationsTable = {
  task_id: number;
  level: 'error' | 'warning' | 'notice';
  message: string;
  title: string | null;
  file: string | null;
  line: number | null;
  end_line: number | null;
  col: number | null;
  end_col: number | null;
  /** The log row the command was printed on (0-based). */
  log_row: number;
};

/** How an artifact was uploaded: the pipeline protocol (many files) or v4 (one zip). */
export type CiArtifactProtocol = 'pipeline' | 'v4';
/** `uploading` until its client finalises it; only `confirmed` ones are listed or served. */
export type CiArtifactState = 'uploading' | 'confirmed';

export type CiArtifactsTable = {
  /** Autoincrementing int64; never reused. */
  id: Generated<number>;
  repo_id: string;
  run_id: string;
  /** The task that created it (a task writes only its own run's artifacts). */
  task_id: number;
  job_name: string;
  name: string;
  protocol: CiArtifactProtocol;
  state: CiArtifactState;
  /** Stored bytes of all its files (gzip-encoded ones as stored). */
  size: Generated<number>;
  created_at: number;
  expires_at: number;
};

export type CiArtifactFilesTable = {
  artifact_id: number;
  /** The path inside the artifact, as the client named it (`name/dir/file`). */
  path: string;
  size: number;
  original_size: number;
  /** `gzip` when stored gzip-encoded, as the client sent it; otherwise empty. */
  encoding: string;
};

export type CiTaskOutputsTable = {
  task_id: number;
  name: string;
  value: string;
};

export type CiSchedulesTable = {
  repo_id: string;
  workflow_file: string;
  /** JSON array of cron lines. */
  crons: string;
};

export type CiScheduleTicksTable = {
  /** Minutes since the epoch. */
  minute: number;
};

export type CiTasksVersionsTable = {
  scope: string;
  version: number;
};

export type CiSecretsTable = {
  repo_id: string;
  name: string;
  /** `v1:<nonce>:<ciphertext>:<tag>`, AES-256-GCM, base64url parts. */
  encrypted_value: string;
  created_at: number;
  updated_at: number;
};

export type CiVariablesTable = {
  repo_id: string;
  name: string;
  value: string;
  created_at: number;
  updated_at: number;
};

/** An organisation's CI secret (`value` sealed as `ci_secrets` values are) or variable. */
export type CiOrgSettingsTable = {
  org_id: string;
  name: string;
  value: string;
  created_at: number;
  updated_at: number;
};

/** The last push of each branch: who and when (the repository page's pull suggestions). */
export type BranchPushesTable = {
  repo_id: string;
  branch: string;
  pusher_id: string;
  pushed_at: number;
};

export type PullRequestsTable = {
  id: string;
  repo_id: string;
  /** Per-repository sequence, allocated from repositories.pull_counter in the same transaction. */
  number: number;
  title: string;
  body: string;
  /** `contentHash` of `body`, written with it (migration 0026). */
  body_hash: string;
  state: 'open' | 'closed';
  merged: boolean | number;
  merged_at: number | null;
  merge_commit_sha: string | null;
  merged_by_id: string | null;
  author_id: string;
  assignee_id: string | null;
  /** The repository the head branch lives in (this one or a fork); null once it is deleted. */
  head_repo_id: string | null;
  head_branch: string;
  /** The head commit last seen (kept in refs/pull/{number}/head of the base repository). */
  head_sha: string;
  base_branch: string;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
};

/** Who on another server proposed a pull request filed under the remote author account (0039). */
export type PullRemoteAuthorsTable = {
  pull_id: string;
  /** The proposer's ActivityPub actor id. */
  actor: string;
  /** `name@host`. */
  login: string;
  avatar_url: string | null;
  /** The id of the `Offer` that opened the pull: one offer opens one pull. */
  offer_id: string;
  created_at: number;
};

export type ReviewCommentsTable = {
  id: string;
  pull_id: string;
  repo_id: string;
  author_id: string;
  body: string;
  path: string;
  line: number | null;
  old_line: number | null;
  side: 'RIGHT' | 'LEFT';
  commit_id: string;
  original_commit_id: string;
  diff_hunk: string;
  in_reply_to_id: string | null;
  created_at: number;
  updated_at: number;
  /** Who marked the thread this comment starts resolved; null while it is open. */
  resolved_by_id: Generated<string | null>;
  resolved_at: Generated<number | null>;
  /** The review this comment belongs to; null for a line comment made on its own. */
  review_id: Generated<string | null>;
};

/** A review's verdict as Gitea names it; `PENDING` until its author submits it. */
export type ReviewState = 'PENDING' | 'APPROVED' | 'REQUEST_CHANGES' | 'COMMENT';

export type PullReviewsTable = {
  id: string;
  pull_id: string;
  repo_id: string;
  reviewer_id: string;
  state: ReviewState;
  body: string;
  /** The pull's head when the review was made (submitted); a later head makes it stale. */
  commit_id: string;
  /** Counted toward the required approvals of the base branch's protection when submitted. */
  official: Generated<boolean | number>;
  dismissed: Generated<boolean | number>;
  dismissed_by_id: string | null;
  dismiss_message: string | null;
  created_at: number;
  updated_at: number;
  submitted_at: number | null;
};

/** What the timeline of a pull records besides its reviews. */
export type PullTimelineKind =
  | 'push'
  | 'force_push'
  | 'closed'
  | 'reopened'
  | 'merged'
  | 'merge_override';

export type PullTimelineTable = {
  id: string;
  pull_id: string;
  kind: PullTimelineKind;
  actor_id: string | null;
  old_sha: string | null;
  new_sha: string | null;
  /** Commits a push added (0 for anything else). */
  commits: Generated<number>;
  /** On `merge_override`: what the merge went past, one blocker a line. */
  note: string | null;
  created_at: number;
};

export type ReleasesTable = {
  id: string;
  repo_id: string;
  tag_name: string;
  /** The branch or commit the tag was (or would have been) made from, as the publisher gave it. */
  target_commitish: string;
  name: string;
  body: string;
  /** `contentHash` of `body`, written with it (migration 0026). */
  body_hash: string;
  prerelease: boolean | number;
  /** Null once the publishing account is gone. */
  author_id: string | null;
  created_at: number;
  updated_at: number;
};

/** A webhook; see migration 0014-webhooks. */
export type WebhooksTable = {
  id: string;
  wire_id: number;
  owner_kind: 'repo' | 'org' | 'system';
  /** The repository's or organisation's id; '' for a system hook. */
  owner_id: string;
  type: string;
  url: string;
  content_type: 'json' | 'form';
  http_method: string;
  sealed_secret: string | null;
  sealed_authorization: string | null;
  /** JSON array of Gitea event names. */
  events: string;
  branch_filter: string;
  active: boolean | number;
  consecutive_failures: number;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
};

/** One delivery of one event to one hook: queue entry and log record. */
export type WebhookDeliveriesTable = {
  id: string;
  hook_id: string;
  event: string;
  event_type: string;
  payload: string;
  state: 'queued' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
  request_url: string | null;
  request_headers: string | null;
  request_body: string | null;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
  created_at: number;
  delivered_at: number | null;
};

/** A stored Git LFS object: its SHA-256 (64 lower-case hex digits) and size in bytes. */
export type LfsObjectsTable = {
  oid: string;
  size: number;
  created_at: number;
};

/** That repository `repo_id` may reach the LFS object `oid`. */
export type LfsRepoObjectsTable = {
  repo_id: string;
  oid: string;
  created_at: number;
};

/** A Git LFS file lock: one per path of a repository, held by `owner_id`. */
export type LfsLocksTable = {
  id: Generated<number>;
  repo_id: string;
  path: string;
  owner_id: string;
  created_at: number;
};

/** A person's SSH key or a repository's deploy key (exactly one of the two owners is set). */
export type SshKeysTable = {
  id: string;
  /** OpenSSH's `SHA256:…`, unique: one key, one owner. */
  fingerprint: string;
  user_id: string | null;
  repo_id: string | null;
  /** Who added a deploy key; its pushes are theirs. */
  added_by: string | null;
  title: string;
  key_type: string;
  /** `TYPE BASE64`, the comment left out. */
  public_key: string;
  read_only: boolean | number;
  created_at: number;
  last_used_at: number | null;
};

export type Tables = {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  users: UsersTable;
  org_members: OrgMembersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_repos: TeamReposTable;
  access_tokens: AccessTokensTable;
  sessions: SessionsTable;
  login_throttle: LoginThrottleTable;
  repo_housekeeping: RepoHousekeepingTable;
  housekeeping_runs: HousekeepingRunsTable;
  repositories: RepositoriesTable;
  owner_repo_counts: OwnerRepoCountsTable;
  collaborators: CollaboratorsTable;
  protected_branches: ProtectedBranchesTable;
  runner_registration_tokens: RunnerRegistrationTokensTable;
  runners: RunnersTable;
  workflow_runs: WorkflowRunsTable;
  ci_run_counters: CiRunCountersTable;
  ci_pull_approvals: CiPullApprovalsTable;
  ci_caches: CiCachesTable;
  ci_tasks: CiTasksTable;
  ci_task_steps: CiTaskStepsTable;
  ci_task_outputs: CiTaskOutputsTable;
  ci_annotations: CiAnnotationsTable;
  ci_artifacts: CiArtifactsTable;
  ci_artifact_files: CiArtifactFilesTable;
  ci_tasks_versions: CiTasksVersionsTable;
  ci_schedules: CiSchedulesTable;
  ci_schedule_ticks: CiScheduleTicksTable;
  ci_secrets: CiSecretsTable;
  ci_variables: CiVariablesTable;
  ci_org_secrets: CiOrgSettingsTable;
  ci_org_variables: CiOrgSettingsTable;
  releases: ReleasesTable;
  pull_requests: PullRequestsTable;
  pull_remote_authors: PullRemoteAuthorsTable;
  branch_pushes: BranchPushesTable;
  review_comments: ReviewCommentsTable;
  lfs_objects: LfsObjectsTable;
  lfs_repo_objects: LfsRepoObjectsTable;
  lfs_locks: LfsLocksTable;
  pull_reviews: PullReviewsTable;
  pull_timeline: PullTimelineTable;
  ssh_keys: SshKeysTable;
};
