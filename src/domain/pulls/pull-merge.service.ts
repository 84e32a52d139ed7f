import { type MergeProcesses, mergeBranches } from '../../git/merge.ts';
import { KeyedMutex } from '../../lib/keyed-mutex.ts';
import { NotAllowed } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { User } from '../users/user.types.ts';
import type { PullService } from './pull.service.ts';
import type { PullStore } from './pull.store.ts';

/**
 * Merges a pull request for real, without a work tree: git computes the merge, the base branch
 * moves by compare-and-swap (retried once on a moved base), and only then is the pull marked
 * merged. On a conflict nothing changes. Any merge strategy a client asks for is ignored: Kiln
 * always records a merge commit (SPEC.md).
 */
export class PullMergeService {
  readonly #pulls: PullService;
  readonly #store: PullStore;
  readonly #repos: RepoService;
  readonly #merging = new KeyedMutex();

  readonly #processes: MergeProcesses;

  constructor(pulls: PullService, store: PullStore, repos: RepoService, processes: MergeProcesses) {
    this.#pulls = pulls;
    this.#store = store;
    this.#repos = repos;
    this.#processes = processes;
  }

  async merge(actor: User, owner: string, name: string, number: number): Promise<string> {
    // One merge into a repository at a time in this process, so a second merge of the same pull
    // sees the first one's result instead of racing it. The repository alone names the lock;
    // the pull is loaded inside it.
    const { repo } = await this.#repos.get(actor, owner, name);
    return this.#merging.run(repo.id, () => this.#merge(actor, owner, name, number));
  }

  async #merge(actor: User, owner: string, name: string, number: number): Promise<string> {
    const { base, head, pull } = await this.#pulls.get(actor, owner, name, number);
    // Merge the newest head: the branch tip when it still exists, else the recorded head.
    // Side by side, but a refusal is what the caller hears, whatever the head lookup did.
    const [access, headTip] = await Promise.allSettled([
      this.#repos.require(actor, owner, name, 'write'),
      head ? this.#pulls.branchTip(head, pull.headBranch) : undefined,
    ]);
    if (access.status === 'rejected') throw access.reason;
    if (headTip.status === 'rejected') throw headTip.reason;
    const tip = headTip.value;
    if (pull.merged) throw new NotAllowed('pull request has already been merged');
    if (pull.state !== 'open') throw new NotAllowed('pull request is closed');

    if (head && tip && tip !== pull.headSha)
      await this.#pulls.onBranchPushed(head, pull.headBranch, tip);
    const headSha = tip ?? pull.headSha;
    const headLabel =
      head && head.id !== base.repo.id
        ? `${head.owner.handle}/${head.name}:${pull.headBranch}`
        : pull.headBranch;
    const identity = { name: actor.fullName || actor.handle, email: actor.email };
    const handle = this.#repos.handle(base.repo);

    let mergeSha: string;
    try {
      mergeSha = await mergeBranches(
        handle,
        {
          baseBranch: pull.baseBranch,
          headSha,
          author: identity,
          message: `Merge pull request '${pull.title}' (#${pull.number}) from ${headLabel} into ${pull.baseBranch}`,
        },
        this.#processes,
      );
    } catch (error) {
      // The head is already part of the base (merged by a push): record it as merged.
      if (!(error instanceof NotAllowed)) throw error;
      mergeSha = headSha;
    }
    const recorded = await this.#store.markMerged(pull.id, {
      sha: mergeSha,
      byId: actor.id,
      at: Date.now(),
    });
    if (!recorded) throw new NotAllowed('pull request has already been merged or closed');
    await this.#repos.touch(base.repo);
    const merged = await this.#pulls.get(actor, owner, name, number);
    await this.#pulls.changed.emit({ action: 'merged', context: merged, actor });
    return mergeSha;
  }
}
