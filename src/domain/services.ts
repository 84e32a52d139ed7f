import type { AdminPolicy } from './admin/admin.policy.ts';
import type { HealthService } from './admin/health.service.ts';
import type { SiteAdminService } from './admin/site-admin.service.ts';
import type { BranchService } from './branches/branch.service.ts';
import type { CommitStatusService } from './branches/commit-status.service.ts';
import type { ArtifactQueryService } from './ci/artifacts/artifact-query.service.ts';
import type { PipelineArtifactService } from './ci/artifacts/pipeline-artifact.service.ts';
import type { V4ArtifactService } from './ci/artifacts/v4-artifact.service.ts';
import type { CiCacheService } from './ci/cache/cache.service.ts';
import type { CiOrgSettingsService } from './ci/ci-org-settings.service.ts';
import type { CiSecretService } from './ci/ci-secret.service.ts';
import type { CiTaskService } from './ci/ci-task.service.ts';
import type { CiVariableService } from './ci/ci-variable.service.ts';
import type { TaskLogs } from './ci/logs/task-logs.ts';
import type { RunApprovalService } from './ci/run-approval.service.ts';
import type { RunCancelService } from './ci/run-cancel.service.ts';
import type { RunLifecycle } from './ci/run-lifecycle.ts';
import type { RunQueryService } from './ci/run-query.service.ts';
import type { RunRerunService } from './ci/run-rerun.service.ts';
import type { RunTriggerService } from './ci/run-trigger.service.ts';
import type { ScheduleService } from './ci/schedule.service.ts';
import type { TaskDispatchService } from './ci/task-dispatch.service.ts';
import type { TaskReportService } from './ci/task-report.service.ts';
import type { CiTaskTokens } from './ci/task-token.ts';
import type { ArchiveService } from './code/archive.service.ts';
import type { CodeService } from './code/code.service.ts';
import type { Federation } from './federation/federation.ts';
import type { SshKeyService } from './keys/ssh-key.service.ts';
import type { LfsService } from './lfs/lfs.service.ts';
import type { LfsLockService } from './lfs/lfs-lock.service.ts';
import type { LfsSshGrants } from './lfs/lfs-ssh-grant.ts';
import type { OrgService } from './orgs/org.service.ts';
import type { TeamService } from './orgs/team.service.ts';
import type { CompareService } from './pulls/compare.service.ts';
import type { MergeGateService } from './pulls/merge-gate.service.ts';
import type { MergeabilityService } from './pulls/mergeability.service.ts';
import type { PullService } from './pulls/pull.service.ts';
import type { PullMergeService } from './pulls/pull-merge.service.ts';
import type { PullReviewService } from './pulls/pull-review.service.ts';
import type { PullSuggestionService } from './pulls/pull-suggestions.service.ts';
import type { PullTimelineService } from './pulls/pull-timeline.service.ts';
import type { RemotePullService } from './pulls/remote-pulls.service.ts';
import type { ReviewCommentService } from './pulls/review-comment.service.ts';
import type { ReleaseService } from './releases/release.service.ts';
import type { TagService } from './releases/tag.service.ts';
import type { CollaboratorService } from './repos/collaborator.service.ts';
import type { HousekeepingService } from './repos/housekeeping.service.ts';
import type { ProtectedBranchService } from './repos/protected-branch.service.ts';
import type { PushService } from './repos/push.service.ts';
import type { RepoService } from './repos/repo.service.ts';
import type { RunnerAdminService } from './runners/runner-admin.service.ts';
import type { RunnerRegistryService } from './runners/runner-registry.service.ts';
import type { LoginThrottle } from './sessions/login-throttle.ts';
import type { SessionService } from './sessions/session.service.ts';
import type { TokenService } from './tokens/token.service.ts';
import type { UserService } from './users/user.service.ts';
import type { WebhookService } from './webhooks/webhook.service.ts';

/** The domain services, built once per process and shared by every edge (HTTP, CLI, MCP).
 * Edges name the part they use, `Pick<DomainServices, 'repos' | 'pulls'>`, never the whole. */
export type DomainServices = {
  readonly users: UserService;
  readonly tokens: TokenService;
  /** People's SSH keys and repositories' deploy keys; who a connecting key speaks for. */
  readonly sshKeys: SshKeyService;
  readonly sessions: SessionService;
  /** Failed sign-ins per account name and client address, kept in the database. */
  readonly loginThrottle: LoginThrottle;
  readonly orgs: OrgService;
  /** Teams of organisations; also the `TeamMembership` rules that name teams ask. */
  readonly teams: TeamService;
  readonly admins: AdminPolicy;
  /** What `/admin` does: counts, people and repositories, disabling, making administrators. */
  readonly siteAdmin: SiteAdminService;
  /** Whether the database and the data dir answer (`/healthz`). */
  readonly health: HealthService;
  readonly repos: RepoService;
  readonly collaborators: CollaboratorService;
  readonly protectedBranches: ProtectedBranchService;
  /** What follows a push, called once by the git edge when receive-pack is done. */
  readonly pushHandling: PushService;
  /** Background repacking of repositories after pushes. */
  readonly housekeeping: HousekeepingService;
  readonly pulls: PullService;
  readonly pullMerges: PullMergeService;
  /** What CI says about merging a pull (required checks of protected branches). */
  readonly mergeGates: MergeGateService;
  /** Branches compared before a pull is opened (the compare page). */
  readonly compares: CompareService;
  /** Pulls suggested after pushes: `git push`'s hint and the repository page's offer. */
  readonly pullSuggestions: PullSuggestionService;
  /** Whether open pulls merge cleanly, remembered per (base, head) pair. */
  readonly mergeability: MergeabilityService;
  readonly reviewComments: ReviewCommentService;
  /** Reviews of pulls with a verdict (Gitea's review API). */
  readonly pullReviews: PullReviewService;
  /** Pushes, closes, reopens and merges of each pull, for its timeline. */
  readonly pullTimeline: PullTimelineService;
  /** Pulls proposed from other servers (federation), and their remote authors. */
  readonly remotePulls: RemotePullService;
  readonly webhooks: WebhookService;
  readonly branches: BranchService;
  /** Commit statuses: a stub that keeps nothing (SPEC.md). */
  readonly commitStatuses: CommitStatusService;
  readonly releases: ReleaseService;
  readonly tags: TagService;
  /** The runner protocol's registry: register, declare, authenticate. */
  readonly runners: RunnerRegistryService;
  readonly runnerAdmin: RunnerAdminService;
  readonly ciTasks: CiTaskService;
  readonly ciSecrets: CiSecretService;
  readonly ciVariables: CiVariableService;
  readonly ciOrgSettings: CiOrgSettingsService;
  /** Runs after they exist: settling, cancelling. */
  readonly ciRuns: RunLifecycle;
  /** Pushes → workflow runs. */
  readonly ciTriggers: RunTriggerService;
  /** FetchTask. */
  readonly ciDispatch: TaskDispatchService;
  /** UpdateTask, UpdateLog. */
  readonly ciReports: TaskReportService;
  /** Task log files. */
  readonly ciLogs: TaskLogs;
  /** Reading runs, jobs and logs (REST, pages). */
  readonly ciRunQueries: RunQueryService;
  /** Cancelling a run on a writer's request (the web's Cancel button). */
  readonly ciRunCancels: RunCancelService;
  readonly ciRunReruns: RunRerunService;
  /** Approval of runs for pull requests from forks. */
  readonly ciRunApprovals: RunApprovalService;
  /** `on: schedule`: crons recorded at push, evaluated once a minute by one replica. */
  readonly ciSchedules: ScheduleService;
  /** CI task tokens as git credentials. */
  readonly ciTaskTokens: CiTaskTokens;
  /** The CI cache of `actions/cache`. */
  readonly ciCaches: CiCacheService;
  /** Artifacts as running tasks write and read them (the pipeline protocol). */
  readonly ciArtifacts: PipelineArtifactService;
  /** Artifacts through the v4 protocol (Twirp and signed blob URLs). */
  readonly ciArtifactsV4: V4ArtifactService;
  /** Artifacts as people list, download and delete them (REST, pages). */
  readonly ciArtifactQueries: ArtifactQueryService;
  /** Reading code for pages: trees, files, history, commits. */
  /** Source archives, at most a few built at once. */
  readonly archives: ArchiveService;
  readonly code: CodeService;
  /** Git LFS objects: batch, transfers, pointers on pages, forks' shares, orphans. */
  readonly lfs: LfsService;
  /** Git LFS file locks. */
  readonly lfsLocks: LfsLockService;
  /** Short-lived LFS credentials that `git-lfs-authenticate` hands out over SSH. */
  readonly lfsSshGrants: LfsSshGrants;
  /** ActivityPub / ForgeFed; undefined when federation is off (see Federation.fromConfig). */
  readonly federation: Federation | undefined;
};
