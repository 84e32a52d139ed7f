import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import type { RunnerScope } from '../runners/runner.types.ts';

/**
 * "The runner holds no running task": the one condition under which an ephemeral runner may be
 * removed and an active runner turns idle.
 */
function holdsNoRunningTask(runnerId: string) {
  return ({ not, exists, selectFrom }: ExpressionBuilder<Tables, 'runners'>) =>
    not(
      exists(
        selectFrom('ci_tasks')
          .select('id')
          .where('runner_id', '=', runnerId)
          .where('status', '=', 'running'),
      ),
    );
}

/**
 * The `runners` rows as the tasks they hold change them: the lock a claim takes, active while a
 * task runs, idle or removed (when ephemeral) once none does, offline when the zombie sweep
 * fails their tasks. Used inside the same transactions as CiTaskStore (CiStores).
 */
export class TaskRunnerStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * Writes the runner's row without changing it, which takes its lock on PostgreSQL inside a
   * transaction; returns whether it is ephemeral, or undefined when it is gone.
   */
  async lockRunner(runnerId: string): Promise<{ ephemeral: boolean } | undefined> {
    const row = await this.#db
      .updateTable('runners')
      .set((eb) => ({ status: eb.ref('status') }))
      .where('id', '=', runnerId)
      .returning('ephemeral')
      .executeTakeFirst();
    return row === undefined ? undefined : { ephemeral: Boolean(row.ephemeral) };
  }

  /** Whether the runner has ever been given a task. */
  async hasHadTask(runnerId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .select('id')
      .where('runner_id', '=', runnerId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async markRunnerActive(runnerId: string): Promise<void> {
    await this.#db
      .updateTable('runners')
      .set({ status: 'active' })
      .where('id', '=', runnerId)
      .execute();
  }

  /** Removes the runner if it is ephemeral and holds no running task; whether it did. */
  async deleteIdleEphemeral(runnerId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('runners')
      .where('id', '=', runnerId)
      .where('ephemeral', '=', true)
      .where(holdsNoRunningTask(runnerId))
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** An active runner that holds no running task any more is idle. */
  async idleIfFree(runnerId: string): Promise<void> {
    await this.#db
      .updateTable('runners')
      .set({ status: 'idle' })
      .where('id', '=', runnerId)
      .where('status', '=', 'active')
      .where(holdsNoRunningTask(runnerId))
      .execute();
  }

  async markRunnersOffline(runnerIds: readonly string[]): Promise<void> {
    if (runnerIds.length === 0) return;
    await this.#db
      .updateTable('runners')
      .set({ status: 'offline' })
      .where('id', 'in', [...runnerIds])
      .execute();
  }

  /** The scope a runner was registered in, or undefined when it is gone. */
  async findRunnerScope(runnerId: string): Promise<RunnerScope | undefined> {
    const row = await this.#db
      .selectFrom('runners')
      .select(['scope_kind', 'scope_repo_id', 'scope_org_id'])
      .where('id', '=', runnerId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    if (row.scope_kind === 'repository' && row.scope_repo_id !== null) {
      return { kind: 'repository', repoId: row.scope_repo_id };
    }
    if (row.scope_kind === 'organisation' && row.scope_org_id !== null) {
      return { kind: 'organisation', orgId: row.scope_org_id };
    }
    return { kind: 'instance' };
  }
}
