import { Conflict, Forbidden } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import { isActionsBot } from '../users/actions-bot.ts';
import type { User } from '../users/user.types.ts';
import type { WorkflowRun } from './ci.types.ts';
import type { CiStores } from './ci-stores.ts';
import { awaitsApproval } from './fork-approval.ts';
import type { RunLifecycle } from './run-lifecycle.ts';
import type { RunQueryService } from './run-query.service.ts';

export type RunApprovalDeps = {
  readonly repos: RepoService;
  readonly queries: RunQueryService;
  readonly stores: CiStores;
  readonly lifecycle: RunLifecycle;
};

/**
 * Approving the runs of a pull request from a fork (fork-approval.ts). Only people who may write
 * to the base repository approve; readers and task tokens are refused (Forbidden), and a run that does not exist
 * or that the person may not see is NotFound. An approval is for the whole pull request: every
 * run of it still waiting goes at once, and the people who made them are not asked again for
 * this pull.
 */
export class RunApprovalService {
  readonly #deps: RunApprovalDeps;

  constructor(deps: RunApprovalDeps) {
    this.#deps = deps;
  }

  /**
   * Approves run `number` and with it every waiting run of its pull request: they are stamped
   * with who and when, and settled, so their jobs become pending (runners are told through
   * `tasks_version`, commit checks show them waiting). Approving a run already approved changes
   * nothing and answers as the first time did.
   * @returns the run as it is afterwards.
   * @throws NotFound, Forbidden, Conflict (the run never needed approval)
   */
  async approve(user: User, owner: string, name: string, number: number): Promise<WorkflowRun> {
    const { repos, queries, stores, lifecycle } = this.#deps;
    const { run } = await queries.getRun(user, owner, name, number);
    await repos.require(user, owner, name, 'write');
    // An approval is a person's judgment of a stranger's code: a job's task token, even one that
    // may write, never gives it, so no workflow can approve another (or a fork's) run.
    if (isActionsBot(user)) throw new Forbidden('a task token cannot approve workflow runs');
    if (!run.needsApproval || run.pullId === null) {
      throw new Conflict('this run needs no approval: it is not from a fork awaiting one');
    }
    const { pullId } = run;
    if (awaitsApproval(run)) {
      const now = Date.now();
      await stores.transaction(async (tx) => {
        // The repository's CI lock before any job row, in the order admissions take them.
        await tx.groups.lock(run.repoId);
        // Runners are told there is work whatever the settle finds, as after a re-run.
        for (const runId of await tx.approvals.approve(pullId, user.id, now)) {
          await lifecycle.reopened(tx, runId, now);
        }
      });
    }
    return (await queries.getRun(user, owner, name, number)).run;
  }

  /**
   * The runs of a pull request waiting for approval, oldest first, for a page that already
   * found the pull visible to its viewer.
   */
  async waitingOf(pullId: string): Promise<WorkflowRun[]> {
    return this.#deps.stores.approvals.listWaiting(pullId);
  }
}
