import type { Migration } from '../migration.ts';
import { accountsMigration } from './0001-accounts.ts';
import { repositoriesMigration } from './0002-repositories.ts';
import { ciMigration } from './0003-ci.ts';
import { releasesMigration } from './0004-releases.ts';
import { pullsMigration } from './0005-pulls.ts';
import { pullListIndexesMigration } from './0006-pull-list-indexes.ts';
import { ownerRepoCountsMigration } from './0007-owner-repo-counts.ts';
import { sessionDevicesMigration } from './0008-session-devices.ts';
import { userDisabledMigration } from './0009-user-disabled.ts';
import { tokenScopesMigration } from './0010-token-scopes.ts';
import { federationMigration } from './0011-federation.ts';
import { ciExecutionMigration } from './0012-ci-execution.ts';
import { repoHousekeepingMigration } from './0013-repo-housekeeping.ts';
import { dropCiLogRowsMigration } from './0014-drop-ci-log-rows.ts';
import { ciRunsByCommitMigration } from './0015-ci-runs-by-commit.ts';
import { webhooksMigration } from './0016-webhooks.ts';
import { ciConcurrencyQueueMigration } from './0017-ci-concurrency-queue.ts';
import { ciOrgSettingsMigration } from './0018-ci-org-settings.ts';
import { orgSettingsSiteAdminsMigration } from './0019-org-settings-site-admins.ts';
import { reviewThreadResolutionMigration } from './0020-review-thread-resolution.ts';
import { branchPushesMigration } from './0021-branch-pushes.ts';
import { actionsBotMigration } from './0022-actions-bot.ts';
import { ciJobConcurrencyMigration } from './0023-ci-job-concurrency.ts';
import { releasesPageOrderMigration } from './0024-releases-page-order.ts';
import { concurrencyGroupsLowerCaseMigration } from './0025-concurrency-groups-lower-case.ts';
import { bodyHashesMigration } from './0026-body-hashes.ts';
import { forkPullApprovalMigration } from './0027-fork-pull-approval.ts';
import { ciLogCapsMigration } from './0028-ci-log-caps.ts';
import { ciArtifactsMigration } from './0029-ci-artifacts.ts';
import { ciCachesMigration } from './0030-ci-caches.ts';
import { requiredChecksMigration } from './0031-required-checks.ts';
import { ciWorkflowCallsMigration } from './0032-ci-workflow-calls.ts';
import { ciAttemptsAnnotationsMigration } from './0033-ci-attempts-annotations.ts';
import { sshKeysMigration } from './0034-ssh-keys.ts';
import { lfsMigration } from './0035-lfs.ts';
import { pullReviewsMigration } from './0036-pull-reviews.ts';
import { teamsMigration } from './0037-teams.ts';
import { branchProtectionRulesMigration } from './0038-branch-protection-rules.ts';
import { remotePullAuthorsMigration } from './0039-remote-pull-authors.ts';
import { federationBlocksMigration } from './0040-federation-blocks.ts';
import { branchRuleTeamIdsMigration } from './0041-branch-rule-team-ids.ts';

import { reviewThreadIndexMigration } from './0042-review-thread-index.ts';
import { federationSentNotesMigration } from './0043-federation-sent-notes.ts';
import { timelineOrderIndexMigration } from './0044-timeline-order-index.ts';

/** Every migration, in the order it is applied. Append only; never edit a released one. */
export const migrations: readonly Migration[] = [
  accountsMigration,
  repositoriesMigration,
  ciMigration,
  releasesMigration,
  pullsMigration,
  pullListIndexesMigration,
  ownerRepoCountsMigration,
  sessionDevicesMigration,
  userDisabledMigration,
  tokenScopesMigration,
  federationMigration,
  ciExecutionMigration,
  repoHousekeepingMigration,
  dropCiLogRowsMigration,
  ciRunsByCommitMigration,
  webhooksMigration,
  ciConcurrencyQueueMigration,
  ciOrgSettingsMigration,
  orgSettingsSiteAdminsMigration,
  reviewThreadResolutionMigration,
  branchPushesMigration,
  actionsBotMigration,
  ciJobConcurrencyMigration,
  releasesPageOrderMigration,
  concurrencyGroupsLowerCaseMigration,
  bodyHashesMigration,
  forkPullApprovalMigration,
  ciLogCapsMigration,
  ciArtifactsMigration,
  ciCachesMigration,
  requiredChecksMigration,
  ciWorkflowCallsMigration,
  ciAttemptsAnnotationsMigration,
  sshKeysMigration,
  lfsMigration,
  pullReviewsMigration,
  teamsMigration,
  branchProtectionRulesMigration,
  remotePullAuthorsMigration,
  federationBlocksMigration,
  branchRuleTeamIdsMigration,
  reviewThreadIndexMigration,
  federationSentNotesMigration,
  timelineOrderIndexMigration,
];
