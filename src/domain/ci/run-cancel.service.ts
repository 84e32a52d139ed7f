import { Conflict } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { User } from '../users/user.types.ts';
import type { WorkflowRun } from './ci.types.ts';
import type { RunLifecycle } from './run-lifecycle.ts';
import type { RunQueryService } from './run-query.service.ts';

/**
 * Cancelling a workflow run on a person's request. Only people who may write to the repository
 * may stop its runs; readers are refused (Forbidden) and outsiders of a private repository never
 * learn it exists (NotFound). The runs themselves move through `RunLifecycle.cancelRun`: every
 * unfinished job becomes cancelled and a running job's runner learns it from the answer to its
 * next UpdateTask, exactly as when a newer push supersedes the run.
 */
export class RunCancelService {
  readonly #repos: RepoService;
  readonly #queries: RunQueryService;
  readonly #lifecycle: RunLifecycle;

  constructor(deps: { repos: RepoService; queries: RunQueryService; lifecycle: RunLifecycle }) {
    this.#repos = deps.repos;
    this.#queries = deps.queries;
    this.#lifecycle = deps.lifecycle;
  }

  /**
   * Cancels run `number` of `owner/name`; a finished run is left as it is.
   * @returns the run as it was before the cancel.
   * @throws NotFound for an unknown run or a repository the user may not see;
   *   Forbidden without write access.
   */
  async cancel(user: User, owner: string, name: string, number: number): Promise<WorkflowRun> {
    await this.#repos.require(user, owner, name, 'write');
    const { run } = await this.#queries.getRun(user, owner, name, number);
    await this.#lifecycle.cancelRun(run.id);
    return run;
  }

  /**
   * Cancels run `number`, refusing one that has already finished (GitHub answers that with a
   * conflict, and a client asking to stop a finished run learns it did nothing).
   * @throws NotFound, Forbidden as `cancel`; Conflict when the run had already finished.
   */
  async cancelUnfinished(
    user: User,
    owner: string,
    name: string,
    number: number,
  ): Promise<WorkflowRun> {
    const before = await this.cancel(user, owner, name, number);
    if (!UNFINISHED.has(before.status)) {
      throw new Conflict(`workflow run ${number} has already completed`);
    }
    return before;
  }
}

const UNFINISHED = new Set<WorkflowRun['status']>(['PENDING', 'BLOCKED', 'RUNNING']);
