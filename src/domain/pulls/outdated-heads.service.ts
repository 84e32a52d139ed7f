import { isAncestor } from '../../git/refs.ts';
import { BoundedMap } from '../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { PullService } from './pull.service.ts';

export type OutdatedHeadsDeps = {
  readonly repos: Pick<RepoService, 'handle'>;
  /** The base branch's tip, read through the repository's cat-file process (no git started). */
  readonly pulls: Pick<PullService, 'branchTip'>;
  /** Where the answers' cache is declared (the composition root's registry). */
  readonly caches?: CacheRegistry;
  /** How many (base tip, head) answers are kept; default 4096. */
  readonly limit?: number;
};

/**
 * Whether a head lacks commits of its base branch (protection's `block_on_outdated_branch`),
 * asked on every view of a protected pull's page. The branch tip comes from the cat-file
 * process; whether the head contains it is git's `merge-base --is-ancestor`, remembered by the
 * pair of commit ids: a commit's ancestry never changes, so an answer holds until either side
 * moves, and then the pair is a new key.
 */
export class OutdatedHeadsService {
  readonly #deps: OutdatedHeadsDeps;
  readonly #contains: BoundedMap<string, boolean>;

  constructor(deps: OutdatedHeadsDeps) {
    this.#deps = deps;
    this.#contains = new BoundedMap(deps.limit ?? 4096);
    deps.caches?.add(
      {
        name: 'pull_outdated_heads',
        key: 'base tip and head commit ids',
        freshness: 'immutable',
        bound: `${this.#contains.limit} answers`,
      },
      this.#contains,
    );
  }

  /** Whether `baseBranch` of `repo` has commits `headSha` lacks; false when there is no such branch. */
  async behind(repo: Repository, baseBranch: string, headSha: string): Promise<boolean> {
    const tip = await this.#deps.pulls.branchTip(repo, baseBranch);
    if (tip === undefined) return false;
    const key = `${tip}..${headSha}`;
    let contains = this.#contains.get(key);
    if (contains === undefined) {
      contains = await isAncestor(this.#deps.repos.handle(repo), tip, headSha);
      this.#contains.set(key, contains);
    }
    return !contains;
  }
}
