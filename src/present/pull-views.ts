import type { PullInContext } from '../domain/pulls/pull.service.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { DomainServices } from '../domain/services.ts';
import type { User } from '../domain/users/user.types.ts';
import type { ConvertContext } from './context.ts';
import { type PullFacts, toApiPullRequest } from './pull.ts';
import type { RepoFacts } from './repo.ts';
import type { RepoViews } from './repo-views.ts';
import type { ApiPullRequest } from './schemas/pull.ts';

/** What the pull request loader reads besides the repositories' own facts. */
export type PullViewDeps = {
  readonly services: Pick<DomainServices, 'pulls' | 'users' | 'repos' | 'remotePulls'>;
};

/**
 * Loads what PullRequest objects show for a page of pulls with a fixed number of lookups (one
 * ref listing per repository involved, one query per kind of related row), then converts.
 */
export class PullViews {
  readonly #services: PullViewDeps['services'];
  readonly #repos: RepoViews;

  constructor(deps: PullViewDeps, repos: RepoViews) {
    this.#services = deps.services;
    this.#repos = repos;
  }

  async many(
    viewer: User | undefined,
    items: readonly PullInContext[],
    context: ConvertContext,
  ): Promise<ApiPullRequest[]> {
    if (items.length === 0) return [];
    const { pulls, users, repos, remotePulls } = this.#services;
    const accountIds = items.flatMap(({ pull }) =>
      [pull.authorId, pull.assigneeId, pull.mergedById].filter((id): id is string => id !== null),
    );
    const [accounts, heads, counts, remoteAuthors] = await Promise.all([
      users.findManyByIds(accountIds),
      pulls.liveHeads(items),
      pulls.reviewCommentCounts(
        items.map((item) => item.pull),
        viewer,
      ),
      remotePulls.authorsOf(items.map((item) => item.pull)),
    ]);
    const repoFacts = new Map<string, Promise<RepoFacts | null>>();
    const factsOf = (repo: Repository) => {
      let facts = repoFacts.get(repo.id);
      if (!facts) {
        facts = repos
          .accessOf(viewer, repo)
          .then((level) => (level === 'none' ? null : this.#repos.facts(repo, level)));
        repoFacts.set(repo.id, facts);
      }
      return facts;
    };
    const baseTips = new Map<string, Promise<string>>();
    const tipOf = (repo: Repository, branch: string) => {
      const key = `${repo.id}\0${branch}`;
      let tip = baseTips.get(key);
      if (!tip) {
        tip = pulls.branchTip(repo, branch).then((sha) => sha ?? '');
        baseTips.set(key, tip);
      }
      return tip;
    };
    return Promise.all(
      items.map(async ({ base, head, pull }) => {
        const [baseFacts, headFacts, baseSha] = await Promise.all([
          factsOf(base.repo),
          head ? factsOf(head) : null,
          tipOf(base.repo, pull.baseBranch),
        ]);
        const live = heads.get(pull.id) ?? { sha: pull.headSha, branchExists: false };
        const author = accounts.get(pull.authorId);
        if (!baseFacts || !author) throw new Error('pull request without its repository or author');
        const facts: PullFacts = {
          pull,
          base: baseFacts,
          head: headFacts,
          headSha: live.sha,
          headBranchExists: live.branchExists,
          baseSha,
          author,
          remoteAuthor: remoteAuthors.get(pull.id),
          assignee: pull.assigneeId ? (accounts.get(pull.assigneeId) ?? null) : null,
          mergedBy: pull.mergedById ? (accounts.get(pull.mergedById) ?? null) : null,
          reviewComments: counts.get(pull.id) ?? 0,
        };
        return toApiPullRequest(facts, context);
      }),
    );
  }

  async one(
    viewer: User | undefined,
    item: PullInContext,
    context: ConvertContext,
  ): Promise<ApiPullRequest> {
    const [api] = await this.many(viewer, [item], context);
    if (!api) throw new Error('pull request conversion produced nothing');
    return api;
  }
}
