import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { countNewCommits } from '../../git/log.ts';
import { type PushedCommit, pushedCommits } from '../../git/push-commits.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';

/** What one ref update brought: its newest commits (with file lists) and how many in all. */
export type PushHistoryPage = { readonly commits: PushedCommit[]; readonly total: number };

/**
 * The commits of a push, for whatever reports pushes elsewhere (webhooks). Not access-checked:
 * callers are reacting to a push that already happened, not answering a viewer.
 */
export class PushHistory {
  readonly #repos: RepoService;
  readonly #pool: CatFilePool;

  constructor(repos: RepoService, pool: CatFilePool) {
    this.#repos = repos;
    this.#pool = pool;
  }

  async read(
    repo: Repository,
    tip: string,
    exclude: string | null,
    limit: number,
  ): Promise<PushHistoryPage> {
    const handle = this.#repos.handle(repo);
    const [commits, total] = await Promise.all([
      pushedCommits(this.#pool, handle, tip, exclude, limit),
      countNewCommits(handle, tip, exclude),
    ]);
    return { commits, total };
  }
}
