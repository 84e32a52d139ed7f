import type { Database } from '../db/database.ts';
import { CommitCheckStore } from '../domain/ci/commit-check.store.ts';
import type { EventBus } from '../domain/events.ts';
import { BranchPushStore } from '../domain/pulls/branch-push.store.ts';
import { CompareService } from '../domain/pulls/compare.service.ts';
import { MergeGateService } from '../domain/pulls/merge-gate.service.ts';
import { MergeabilityService } from '../domain/pulls/mergeability.service.ts';
import { OutdatedHeadsService } from '../domain/pulls/outdated-heads.service.ts';
import { PullService } from '../domain/pulls/pull.service.ts';
import { PullStore } from '../domain/pulls/pull.store.ts';
import { PullMergeService } from '../domain/pulls/pull-merge.service.ts';
import { PullReviewService } from '../domain/pulls/pull-review.service.ts';
import { PullReviewStore } from '../domain/pulls/pull-review.store.ts';
import { PullSuggestionService } from '../domain/pulls/pull-suggestions.service.ts';
import { PullTimelineService } from '../domain/pulls/pull-timeline.service.ts';
import { PullTimelineStore } from '../domain/pulls/pull-timeline.store.ts';
import { RemoteAuthorStore } from '../domain/pulls/remote-author.store.ts';
import { RemotePullService } from '../domain/pulls/remote-pulls.service.ts';
import { ReviewCommentService } from '../domain/pulls/review-comment.service.ts';
import { ReviewCommentStore } from '../domain/pulls/review-comment.store.ts';
import type { ProtectedBranchService } from '../domain/repos/protected-branch.service.ts';
import type { RepoService } from '../domain/repos/repo.service.ts';
import type { UserService } from '../domain/users/user.service.ts';
import { mergeBase } from '../git/diff.ts';
import type { GitContext } from '../git/git-context.ts';
import { changedPaths } from '../git/workflow-files.ts';
import type { CacheRegistry } from '../lib/cache-registry.ts';

export type PullParts = {
  readonly db: Database['db'];
  readonly git: GitContext;
  readonly events: EventBus;
  readonly repos: RepoService;
  readonly users: UserService;
  readonly protectedBranches: ProtectedBranchService;
  readonly caches: CacheRegistry;
};

const report = (what: string) => (error: unknown) => {
  process.stderr.write(`kiln: ${what} failed: ${String(error)}\n`);
};

/** Pull requests: the pulls, their merges and gates, compares, suggestions, review comments. */
export function buildPulls(parts: PullParts) {
  const { db, git, events, repos } = parts;
  const store = new PullStore(db, parts.caches);
  const branchPushes = new BranchPushStore(db);
  const pulls = new PullService({
    store,
    repos,
    users: parts.users,
    catFiles: git.catFiles,
    events,
  });
  const commentStore = new ReviewCommentStore(db);
  const reviewComments = new ReviewCommentService({
    store: commentStore,
    pullStore: store,
    pulls,
    repos,
    catFiles: git.catFiles,
    events,
  });
  const reviewStore = new PullReviewStore(db);
  const pullTimeline = new PullTimelineService(new PullTimelineStore(db), repos, git.catFiles, {
    reviews: reviewStore,
    comments: commentStore,
  });
  const protectedBranches = parts.protectedBranches;
  const outdatedHeads = new OutdatedHeadsService({ repos, pulls, caches: parts.caches });
  const mergeGates = new MergeGateService(protectedBranches, new CommitCheckStore(db), {
    reviews: (pullId) => reviewStore.listByPull(pullId, undefined),
    behind: (repo, baseBranch, headSha) => outdatedHeads.behind(repo, baseBranch, headSha),
    // Asked on every view of a protected pull's page: the tip comes from the cat-file process,
    // and git's answers for the pair of commit ids are kept (object-answers.ts), so a view of a
    // pull whose base and head have not moved starts no git.
    changedFiles: async (repo, baseBranch, headSha) => {
      const handle = repos.handle(repo);
      const tip = await pulls.branchTip(repo, baseBranch);
      const base = tip && (await mergeBase(handle, tip, headSha));
      return changedPaths(handle, headSha, base ?? undefined);
    },
  });
  return {
    pulls,
    /** Who last pushed each branch: CI's fork approvals ask it too. */
    branchPushes,
    pullMerges: new PullMergeService(pulls, store, repos, git, {
      onError: report('announcing a merge'),
      gate: mergeGates,
      recordOverride: (pullId, actorId, blockers) =>
        pullTimeline.recordOverride(pullId, actorId, blockers),
    }),
    mergeGates,
    compares: new CompareService({ repos, pulls, store, catFiles: git.catFiles }),
    pullSuggestions: new PullSuggestionService({ repos, pulls: store, pushes: branchPushes }),
    mergeability: new MergeabilityService({
      repos,
      pulls,
      caches: parts.caches,
      onError: report('mergeability check'),
    }),
    reviewComments,
    pullReviews: new PullReviewService({
      store: reviewStore,
      pulls,
      comments: reviewComments,
      official: (context, reviewer) => protectedBranches.isOfficialReviewer(context, reviewer),
      events,
    }),
    pullTimeline,
    /** Pulls proposed from other servers, and who proposed them. */
    remotePulls: new RemotePullService({
      store,
      authors: new RemoteAuthorStore(db),
      repos,
      events,
    }),
  };
}

const BRANCH_PREFIX = 'refs/heads/';

/**
 * Pull requests follow pushes. First who pushed each branch is recorded: a run of a pull's head
 * asks for its pusher's approval (fork-approval.ts), and must not read the pusher of the head
 * before. Then every branch a push moved (not deleted) brings the `refs/pull/N/head` of the open
 * pulls it heads to its new tip, which announces their `synchronized`.
 */
export function subscribePulls(
  events: Pick<EventBus, 'subscribe'>,
  parts: {
    readonly suggestions: Pick<PullSuggestionService, 'record'>;
    readonly pulls: Pick<PullService, 'onBranchPushed'>;
    readonly timeline: Pick<PullTimelineService, 'record'>;
  },
): void {
  // A pull's pushes, closes, reopens and merges go on its timeline before anyone else hears.
  events.subscribe('pull', (event) => parts.timeline.record(event));
  events.subscribe('push', (push) => parts.suggestions.record(push));
  events.subscribe('push', async ({ repo, changes, pusher }) => {
    for (const change of changes) {
      if (change.newSha && change.ref.startsWith(BRANCH_PREFIX)) {
        const branch = change.ref.slice(BRANCH_PREFIX.length);
        await parts.pulls.onBranchPushed(repo, branch, change.newSha, pusher);
      }
    }
  });
}
