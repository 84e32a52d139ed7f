import { mergeConflicts } from '../../git/merge.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import { BoundedMap } from '../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { PullInContext, PullService } from './pull.service.ts';

/** Whether a head merges into a base cleanly, and the conflicting paths when it does not. */
export type Mergeability =
  | { readonly state: 'clean' }
  | { readonly state: 'conflict'; readonly files: readonly string[] };

export type MergeabilityDeps = {
  readonly repos: Pick<RepoService, 'handle'>;
  readonly pulls: Pick<PullService, 'range'>;
  /** How many (base, head) answers are kept; default 4096 (a few hundred kilobytes). */
  readonly limit?: number;
  /** Where the answers' cache is declared (the composition root's registry). */
  readonly caches?: CacheRegistry;
  /** Where a failed check is reported (it is then simply not known). */
  readonly onError?: (error: unknown) => void;
};

/**
 * Mergeability of pulls, answered by `merge-tree --write-tree` (what merging runs) for a base
 * tip and a head tip, and remembered by that pair: commits never change, so an answer holds
 * until either side moves, and then the pair is a new key. Answers are kept in memory, bounded;
 * one check per pair runs at a time, however many ask. A page never waits for one (`known`
 * starts it and answers what is known now); an API answer may (`check`).
 */
export class MergeabilityService {
  readonly #deps: MergeabilityDeps;
  readonly #answers: BoundedMap<string, Mergeability>;
  readonly #running = new Map<string, Promise<Mergeability | undefined>>();

  constructor(deps: MergeabilityDeps) {
    this.#deps = deps;
    this.#answers = new BoundedMap(deps.limit ?? 4096);
    deps.caches?.add(
      {
        name: 'pull_mergeability',
        key: 'base and head commit ids',
        freshness: 'immutable',
        bound: `${this.#answers.limit} answers`,
      },
      this.#answers,
    );
  }

  /** The answer for these tips when known; else undefined, and a check starts meanwhile. */
  known(base: Repository, baseSha: string, headSha: string): Mergeability | undefined {
    const answer = this.#answers.get(key(baseSha, headSha));
    if (!answer) void this.check(base, baseSha, headSha);
    return answer;
  }

  /** The answer for these tips, checked now when not known; undefined when git cannot tell. */
  async check(base: Repository, baseSha: string, headSha: string) {
    const at = key(baseSha, headSha);
    const answer = this.#answers.get(at);
    if (answer) return answer;
    let running = this.#running.get(at);
    if (!running) {
      running = this.#compute(this.#deps.repos.handle(base), baseSha, headSha).finally(() =>
        this.#running.delete(at),
      );
      this.#running.set(at, running);
    }
    return running;
  }

  /** The tips an open pull would merge now; undefined for a pull that is not open. */
  async endsOf(context: PullInContext): Promise<{ base: string; head: string } | undefined> {
    if (context.pull.state !== 'open') return undefined;
    return this.#deps.pulls.range(context);
  }

  /** `known` for an open pull (undefined for others, and while not known). */
  async knownFor(context: PullInContext): Promise<Mergeability | undefined> {
    const ends = await this.endsOf(context);
    return ends && this.known(context.base.repo, ends.base, ends.head);
  }

  /** `check` for an open pull (undefined for others). */
  async checkFor(context: PullInContext): Promise<Mergeability | undefined> {
    const ends = await this.endsOf(context);
    return ends && this.check(context.base.repo, ends.base, ends.head);
  }

  async #compute(repo: RepoHandle, baseSha: string, headSha: string) {
    try {
      const files = await mergeConflicts(repo, baseSha, headSha);
      const answer: Mergeability =
        files.length === 0 ? { state: 'clean' } : { state: 'conflict', files };
      this.#answers.set(key(baseSha, headSha), answer);
      return answer;
    } catch (error) {
      this.#deps.onError?.(error);
      return undefined;
    }
  }
}

function key(baseSha: string, headSha: string): string {
  return `${baseSha}..${headSha}`;
}
