import type { CommitAuthorStore } from '../domain/branches/commit-author.store.ts';
import type { PushHistory } from '../domain/code/push-history.ts';
import type { PullService } from '../domain/pulls/pull.service.ts';
import type { PullEvent } from '../domain/pulls/pull-events.ts';
import type { RepoService } from '../domain/repos/repo.service.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { UserService } from '../domain/users/user.service.ts';
import type { Account } from '../domain/users/user.types.ts';
import { repoPathOf } from '../present/branch.ts';
import { toApiPayloadCommit } from '../present/commit.ts';
import type { ConvertContext } from '../present/context.ts';
import { toApiPullRequest } from '../present/pull.ts';
import { type RepoFacts, toApiRepository } from '../present/repo.ts';
import type { ApiPayloadCommit } from '../present/schemas/branch.ts';
import type { ApiPullRequest } from '../present/schemas/pull.ts';
import type { ApiRepository } from '../present/schemas/repo.ts';
import type { ApiUser } from '../present/schemas/user.ts';
import { toApiUser } from '../present/user.ts';
import { withFileLists } from '../present/webhook-payloads.ts';

export type WebhookRecordsDeps = {
  readonly repos: RepoService;
  readonly users: UserService;
  readonly pulls: PullService;
  readonly history: PushHistory;
  readonly authors: Pick<CommitAuthorStore, 'handlesByEmail'>;
  readonly context: ConvertContext;
};

/** Commits a push payload lists at most, newest first (`total_commits` counts them all). */
export const PUSH_COMMITS_SHOWN = 20;

/**
 * Loads what webhook payloads nest (repositories, users, pulls, commits) and hands it to the
 * shared converters, so a payload's records are the REST API's. Repositories are shown with
 * owner permissions, as Gitea writes them into payloads.
 */
export class WebhookRecords {
  readonly #deps: WebhookRecordsDeps;

  constructor(deps: WebhookRecordsDeps) {
    this.#deps = deps;
  }

  get context(): ConvertContext {
    return this.#deps.context;
  }

  user(account: Account): ApiUser {
    return toApiUser(account, this.#deps.context);
  }

  /** The user with this id; throws when the account is gone (nothing to report then). */
  async userById(id: string): Promise<ApiUser> {
    const account = await this.#deps.users.findById(id);
    if (!account) throw new Error(`account ${id} is gone`);
    return this.user(account);
  }

  async branchTip(repo: Repository, branch: string): Promise<string | undefined> {
    return this.#deps.pulls.branchTip(repo, branch);
  }

  async repoFacts(repo: Repository): Promise<RepoFacts> {
    // A deleted repository has no directory left to read; it is shown as empty.
    const head = await this.#deps.repos
      .headFacts(repo)
      .catch(() => ({ defaultBranch: 'main', empty: true }));
    return { repo, access: 'admin', ...head };
  }

  async repository(repo: Repository): Promise<ApiRepository> {
    const facts = await this.repoFacts(repo);
    const parent = repo.parentId ? await this.#deps.repos.findById(repo.parentId) : undefined;
    return toApiRepository(
      facts,
      this.#deps.context,
      parent ? await this.repoFacts(parent) : undefined,
    );
  }

  /** The pull as REST shows it; a payload speaks to no reader, so no access is needed. */
  async pull(item: PullEvent['context']): Promise<ApiPullRequest> {
    const { pull, base, head } = item;
    const { pulls, users } = this.#deps;
    const ids = [pull.authorId, pull.assigneeId, pull.mergedById].filter(
      (id): id is string => id !== null,
    );
    const [accounts, baseFacts, headFacts, baseSha, headTip, counts] = await Promise.all([
      users.findManyByIds(ids),
      this.repoFacts(base),
      head ? this.repoFacts(head) : null,
      pulls.branchTip(base, pull.baseBranch),
      head && pull.state === 'open' ? pulls.branchTip(head, pull.headBranch) : undefined,
      pulls.reviewCommentCounts([pull]),
    ]);
    const author = accounts.get(pull.authorId);
    if (!author) throw new Error('pull request without its author');
    return toApiPullRequest(
      {
        pull,
        base: baseFacts,
        head: headFacts,
        headSha: headTip ?? pull.headSha,
        headBranchExists: headTip !== undefined,
        baseSha: baseSha ?? '',
        author,
        assignee: pull.assigneeId ? (accounts.get(pull.assigneeId) ?? null) : null,
        mergedBy: pull.mergedById ? (accounts.get(pull.mergedById) ?? null) : null,
        reviewComments: counts.get(pull.id) ?? 0,
        // An event is sent as it happens, not held back for a merge check.
        conflicted: false,
      },
      this.#deps.context,
    );
  }

  /** The newest commits `tip` brought over `exclude`, with their file lists, and the total. */
  async pushedCommits(
    repo: Repository,
    tip: string,
    exclude: string | null,
    limit = PUSH_COMMITS_SHOWN,
  ): Promise<{ commits: ApiPayloadCommit[]; total: number }> {
    const page = await this.#deps.history.read(repo, tip, exclude, limit);
    const emails = new Set<string>();
    for (const { commit } of page.commits) {
      emails.add(commit.author.email.toLowerCase());
      emails.add(commit.committer.email.toLowerCase());
    }
    const handles = await this.#deps.authors.handlesByEmail(emails);
    const path = repoPathOf(repo);
    const commits = page.commits.map((pushed) =>
      withFileLists(toApiPayloadCommit(pushed.commit, path, handles, this.#deps.context), pushed),
    );
    return { commits, total: page.total };
  }
}
