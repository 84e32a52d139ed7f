import type { CiTask, WorkflowRun } from './ci.types.ts';
import type { CiStores } from './ci-stores.ts';
import type { GroupMember } from './job-group.store.ts';

/** Settles a run in the caller's transaction (RunLifecycle.settle). */
type SettleRun = (stores: CiStores, runId: string, now: number) => Promise<void>;

const holds = (member: GroupMember) => member.status === 'pending' || member.status === 'running';

/**
 * Job-level `concurrency:` groups, as GitHub and Gitea run them: per repository, at most one job
 * of a group is pending or running and at most one waits (queued, blocked). A job enters its
 * group when its `needs` are done: it replaces the job waiting there, which is cancelled (with
 * `cancel-in-progress`, the pending and running ones are cancelled too; a runner learns it from
 * its next UpdateTask), and waits itself while another job holds the group. When a job of the
 * group ends, the waiting one is admitted. Callers hold the repository's CI lock
 * (JobGroupStore.lock), so admissions, releases and claims of one repository never interleave,
 * on any number of replicas. Every transaction that changes jobs of a group takes that lock
 * before any job row — creating a run, settling, cancelling, claiming, the sweeps (several
 * repositories in id order) — so that none waits for a row another holds while holding the lock.
 */
export class JobAdmission {
  readonly #settle: SettleRun;

  constructor(settle: SettleRun) {
    this.#settle = settle;
  }

  /**
   * Admits the jobs of `run` that `changed` would make pending and that have a group: admitted
   * ones become pending now; the others are queued and dropped from `changed`. Answers whether
   * a job of `run` itself was cancelled on the way (a matrix sharing one group), after which the
   * caller settles the run again.
   */
  async admit(
    stores: CiStores,
    run: WorkflowRun,
    jobs: readonly CiTask[],
    changed: Map<string, 'pending' | 'skipped'>,
    now: number,
  ): Promise<boolean> {
    let cancelledOwn = false;
    for (const job of jobs) {
      const group = job.concurrencyGroup;
      const key = String(job.id);
      if (group === null || changed.get(key) !== 'pending') continue;
      if (!job.concurrencyQueued) {
        cancelledOwn = (await this.#makeRoom(stores, run, job, now)) || cancelledOwn;
      }
      const members = await stores.groups.listUnfinished(run.repoId, group);
      if (members.some((member) => member.id !== job.id && holds(member))) {
        changed.delete(key);
        if (!job.concurrencyQueued) await stores.groups.markQueued(job.id, now);
      } else {
        // Written at once, so that the next job of the same group in this run sees the holder.
        await stores.jobs.unblock(job.id, 'pending', now);
      }
    }
    return cancelledOwn;
  }

  /**
   * A job entering its group cancels the job waiting there, and with `cancel-in-progress` the
   * pending and running ones; other runs are settled, a cancel in `run` is answered.
   */
  async #makeRoom(stores: CiStores, run: WorkflowRun, job: CiTask, now: number) {
    const members = await stores.groups.listUnfinished(run.repoId, job.concurrencyGroup ?? '');
    const doomed = members.filter(
      (member) =>
        member.id !== job.id && (member.queued || (job.concurrencyCancel && holds(member))),
    );
    const runs = new Set<string>();
    for (const member of doomed) {
      const runId = await stores.jobs.cancelUnfinished(member.id, now);
      if (runId !== undefined) runs.add(runId);
    }
    for (const runId of runs) if (runId !== run.id) await this.#settle(stores, runId, now);
    return runs.has(run.id);
  }

  /** After a job of `group` ended: the waiting job goes when nothing holds the group any more. */
  async release(stores: CiStores, repoId: string, group: string, now: number): Promise<void> {
    const members = await stores.groups.listUnfinished(repoId, group);
    if (members.some(holds)) return;
    const next = members.find((member) => member.queued);
    if (next !== undefined) await this.#settle(stores, next.runId, now);
  }
}
