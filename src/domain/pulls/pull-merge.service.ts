import { type MergeProcesses, mergeBranches } from '../../git/merge.ts';
import { KeyedMutex } from '../../lib/keyed-mutex.ts';
import { Forbidden, NotAllowed } from '../errors.ts';
import { mayAdministerRepo } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { User } from '../users/user.types.ts';
import type { MergeGateService } from './merge-gate.service.ts';
import { mayMergePull } from './pull.policy.ts';
import type { PullService } from './pull.service.ts';
import type { PullStore } from './pull.store.ts';

/**
 * `onError`: where a failure after the answer goes (nobody waits on it any more); `gate`: what
 * CI says about the merge (merge-gate.service.ts).
 */
export type PullMergeOptions = {
  readonly onError: (error: unknown) => void;
  readonly gate: Pick<MergeGateService, 'assertOpen'>;
  /** Keeps what an administrator's forced merge went past (Gitea's reasons, one each). */
  readonly recordOverride: (pullId: string, actorId: string, reasons: string[]) => Promise<void>;
};

/**
 * Merges a pull request for real, without a work tree: git computes the merge, the base branch
 * moves by compare-and-swap (retried once on a moved base), and only then is the pull marked
 * merged. On a conflict nothing changes. Any merge strategy a client asks for is ignored: Kiln
 * always records a merge commit (SPEC.md).
 *
 * The merger's answer waits for the merge and its record only. The `closed` announcement (CI
 * reading workflow files at the head, webhooks) follows the answer, as a push's listeners follow
 * receive-pack: announcements run one after the other in the order the merges were recorded, and
 * `settle` lets the composition root wait for them before closing what they use, so none is lost.
 */
export class PullMergeService {
  readonly #pulls: PullService;
  readonly #store: PullStore;
  readonly #repos: RepoService;
  readonly #merging = new KeyedMutex();

  readonly #processes: MergeProcesses;
  readonly #onError: (error: unknown) => void;
  readonly #gate: PullMergeOptions['gate'];
  readonly #recordOverride: PullMergeOptions['recordOverride'];
  /** The last announcement handed over; each one starts when the one before has settled. */
  #announcing: Promise<void> = Promise.resolve();

  constructor(
    pulls: PullService,
    store: PullStore,
    repos: RepoService,
    processes: MergeProcesses,
    options: PullMergeOptions,
  ) {
    this.#pulls = pulls;
    this.#store = store;
    this.#repos = repos;
    this.#processes = processes;
    this.#onError = options.onError;
    this.#gate = options.gate;
    this.#recordOverride = options.recordOverride;
  }

  /** Resolves once every merge recorded so far has been announced to all listeners. */
  async settle(): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = this.#announcing;
      await tail;
    } while (tail !== this.#announcing);
  }

  /**
   * Merges the pull. `force` (Gitea's `force_merge`) lets a repository admin merge past what
   * the base branch's protection still waits for; the merge then records what it went past.
   */
  async merge(
    actor: User,
    owner: string,
    name: string,
    number: number,
    options: { force?: boolean } = {},
  ): Promise<string> {
    // One merge into a repository at a time in this process, so a second merge of the same pull
    // sees the first one's result instead of racing it. The repository alone names the lock;
    // the pull is loaded inside it.
    const { repo } = await this.#repos.get(actor, owner, name);
    return this.#merging.run(repo.id, () =>
      this.#merge(actor, owner, name, number, options.force ?? false),
    );
  }

  async #merge(
    actor: User,
    owner: string,
    name: string,
    number: number,
    force: boolean,
  ): Promise<string> {
    const { base, head, pull } = await this.#pulls.get(actor, owner, name, number);
    // A refusal is what the caller hears, whatever the head lookup would have done.
    if (!mayMergePull(base.access)) {
      throw new Forbidden(`you need write access to ${base.repo.owner.handle}/${base.repo.name}`);
    }
    // Merge the newest head: the branch tip when it still exists, else the recorded head.
    const tip = head ? await this.#pulls.branchTip(head, pull.headBranch) : undefined;
    if (pull.merged) throw new NotAllowed('pull request has already been merged');
    if (pull.state !== 'open') throw new NotAllowed('pull request is closed');

    // The tip's commits are brought into the base, but the pull's head is not stored here: a
    // push not yet announced stays the push use case's to announce (`onBranchPushed`), should
    // this merge fail and the pull stay open.
    const headSha = tip ? await this.#pulls.currentHead({ base, head, pull }) : pull.headSha;
    // The commit that would be merged is the one whose checks decide, read inside the lock.
    const overridden = await this.#gate.assertOpen(base.repo, pull.baseBranch, headSha, pull, {
      force,
      mayOverride: mayAdministerRepo(base.access),
      merger: actor,
    });
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
      headSha,
      byId: actor.id,
      at: Date.now(),
    });
    if (!recorded) throw new NotAllowed('pull request has already been merged or closed');
    if (overridden.length > 0) {
      await this.#recordOverride(
        pull.id,
        actor.id,
        overridden.map((blocker) => blocker.reason),
      );
    }
    await this.#repos.touch(base.repo);
    this.#announceLater(() => this.#pulls.announceMerged(actor, owner, name, number));
    return mergeSha;
  }

  /**
   * Queues an announcement behind the ones before it; it never rejects (see `onError`). It
   * starts on a later turn of the event loop, not as soon as the merge returns: the listeners'
   * first steps are synchronous (SQLite reads), and run at once they would come before the
   * caller has even sent its answer.
   */
  #announceLater(announce: () => Promise<void>): void {
    const previous = this.#announcing;
    this.#announcing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => previous)
      .then(announce)
      .catch(this.#onError);
  }
}
