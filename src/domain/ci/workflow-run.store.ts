import { type Kysely, sql } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { Tables, WorkflowRunsTable } from '../../db/tables.ts';
import { newId } from '../../lib/ids.ts';
import type { CiTask, WorkflowRun, WorkflowRunStatus } from './ci.types.ts';
import { toRun, toTask } from './ci-rows.ts';
import { TasksVersionStore } from './tasks-version.store.ts';
import { aggregateStatus } from './workflow/job-status.ts';

/** A run to record: what names it and what triggered it, as the run will carry them. */
export type NewRun = Pick<
  WorkflowRun,
  'repoId' | 'workflowName' | 'workflowFile' | 'event' | 'ref' | 'sha' | 'triggeredBy'
> & {
  readonly title?: string;
  readonly eventPayload?: unknown;
  readonly actor?: string;
  readonly headRef?: string;
  readonly baseRef?: string;
  readonly forkPull?: boolean;
  /** Why the run cannot start; the run is recorded failed with no jobs. */
  readonly error?: string;
  readonly concurrencyGroup?: string;
  /** Queued behind the unfinished run of its group: every job starts blocked. */
  readonly concurrencyQueued?: boolean;
  /** The pull request a `pull_request` run is made for. */
  readonly pullId?: string;
  /** Waits for a writer's approval (fork-approval.ts): every job starts blocked. */
  readonly needsApproval?: boolean;
  /** The workflow calls its jobs were expanded from (call-frames.ts). */
  readonly calls?: Readonly<Record<string, unknown>>;
};

export type NewTask = {
  readonly name: string;
  readonly jobKey: string;
  readonly runsOn?: readonly string[];
  readonly needs?: readonly string[];
  readonly payload?: string;
  readonly hasIf?: boolean;
  readonly stepNames?: readonly string[];
  /** Job-level `concurrency`: the job starts blocked and is admitted to its group by a settle. */
  readonly concurrency?: { readonly group: string; readonly cancelInProgress: boolean };
  /** The job's token permissions, encoded (permissions.ts); absent is `write-all`. */
  readonly permissions?: string;
  /** Made skipped (a called workflow whose calling job's `if:` was false). */
  readonly skipped?: boolean;
};

/**
 * Creates a workflow run with its jobs (task rows): jobs without `needs` start pending (Gitea's
 * Waiting), the others blocked; every job of a run queued behind its `concurrency` group starts
 * blocked, and so does a job with a `concurrency` of its own (RunLifecycle.settle admits it)
 * and every job of a run that waits for approval (fork-approval.ts).
 * The run number comes from an atomic upsert on the repository's counter in the same transaction, so concurrent triggers on any number of replicas never share
 * or skip a number; the `tasks_version` counters of `versionScopes` move in it too, so a runner
 * that sees the new version also sees the jobs. A run with an `error` is recorded failed, jobless.
 */
export async function createRun(
  db: Kysely<Tables>,
  run: NewRun,
  tasks: readonly NewTask[],
  versionScopes: readonly string[] = [],
): Promise<{ run: WorkflowRun; tasks: CiTask[] }> {
  const write = async (trx: Kysely<Tables>) => {
    const counter = await trx
      .insertInto('ci_run_counters')
      .values({ repo_id: run.repoId, last_number: 1 })
      .onConflict((oc) =>
        oc.column('repo_id').doUpdateSet({ last_number: sql`ci_run_counters.last_number + 1` }),
      )
      .returning('last_number')
      .executeTakeFirstOrThrow();
    const now = Date.now();
    const queued = run.concurrencyQueued === true;
    const held = queued || run.needsApproval === true;
    const statuses = tasks.map((task) =>
      task.skipped === true
        ? 'skipped'
        : held || (task.needs ?? []).length > 0 || task.concurrency !== undefined
          ? 'blocked'
          : 'pending',
    );
    const failed = run.error !== undefined;
    const row = await trx
      .insertInto('workflow_runs')
      .values({
        id: newId(),
        repo_id: run.repoId,
        number: Number(counter.last_number),
        workflow_name: run.workflowName,
        workflow_file: run.workflowFile,
        event: run.event,
        ref: run.ref,
        sha: run.sha,
        triggered_by: run.triggeredBy,
        status: failed ? 'FAILURE' : runStatusOf(aggregateStatus(statuses)),
        created_at: now,
        started_at: null,
        stopped_at: failed ? now : null,
        updated_at: now,
        title: run.title ?? '',
        event_payload: JSON.stringify(run.eventPayload ?? {}),
        actor: run.actor ?? '',
        head_ref: run.headRef ?? '',
        base_ref: run.baseRef ?? '',
        fork_pull: run.forkPull ?? false,
        error: run.error ?? null,
        concurrency_group: run.concurrencyGroup ?? null,
        concurrency_queued: queued,
        pull_id: run.pullId ?? null,
        needs_approval: run.needsApproval ?? false,
        calls: JSON.stringify(run.calls ?? {}),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const created: CiTask[] = [];
    for (const [at, task] of tasks.entries()) {
      const inserted = await trx
        .insertInto('ci_tasks')
        .values({
          run_id: row.id,
          name: task.name,
          runs_on: JSON.stringify(task.runsOn ?? []),
          needs: JSON.stringify(task.needs ?? []),
          outputs: '{}',
          job_key: task.jobKey,
          payload: task.payload ?? '',
          runner_id: null,
          status: statuses[at] ?? 'pending',
          log_rows: 0,
          deadline_at: null,
          created_at: now,
          started_at: null,
          stopped_at: null,
          has_if: task.hasIf ?? false,
          step_names: JSON.stringify(task.stepNames ?? []),
          updated_at: now,
          concurrency_group: task.concurrency?.group ?? null,
          concurrency_cancel: task.concurrency?.cancelInProgress ?? false,
          permissions: task.permissions ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      created.push(toTask(inserted));
    }
    if (statuses.includes('pending')) await new TasksVersionStore(trx).bump(versionScopes);
    return { run: toRun(row), tasks: created };
  };
  return db.isTransaction ? write(db) : db.transaction().execute(write);
}

/** Which runs a listing keeps: one workflow file, one status, or both. */
export type RunFilter = { readonly workflowFile?: string; readonly status?: WorkflowRunStatus };

/** What supersedes earlier runs: the same repository, ref, workflow and event, or one group. */
export type Supersedes = {
  readonly repoId: string;
  readonly ref: string;
  readonly workflowFile: string;
  readonly event: string;
  /** Set when the new run's `concurrency` has `cancel-in-progress`. */
  readonly concurrencyGroup: string | undefined;
};

/** What a run adds to its commit's check. */
export type RunVerdict = Pick<WorkflowRun, 'sha' | 'workflowFile' | 'number' | 'status'>;

/** Queries over `workflow_runs` (jobs are in ci-job.store.ts). */
export class WorkflowRunStore {
  readonly #db: Kysely<Tables>;
  // A commit's page asks for its one commit's verdicts on every view.
  readonly #verdictsAtOne;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
    this.#verdictsAtOne = prepared(db, (p: { repoId: string; sha: string }) =>
      this.#verdicts().where('repo_id', '=', p.repoId).where('sha', '=', p.sha),
    );
  }

  #verdicts() {
    return this.#db
      .selectFrom('workflow_runs')
      .select(['sha', 'workflow_file as workflowFile', 'number', 'status']);
  }

  /** See `createRun`. */
  create(run: NewRun, tasks: readonly NewTask[], versionScopes: readonly string[] = []) {
    return createRun(this.#db, run, tasks, versionScopes);
  }

  async findById(runId: string): Promise<WorkflowRun | undefined> {
    const row = await this.#db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('id', '=', runId)
      .executeTakeFirst();
    return row === undefined ? undefined : toRun(row);
  }

  async findByNumber(repoId: string, number: number): Promise<WorkflowRun | undefined> {
    const row = await this.#db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('number', '=', number)
      .executeTakeFirst();
    return row === undefined ? undefined : toRun(row);
  }

  /** A page of a repository's runs, newest first, with the total the filter keeps. */
  async list(
    repoId: string,
    page: { limit: number; offset: number },
    filter: RunFilter = {},
  ): Promise<{ runs: WorkflowRun[]; total: number }> {
    let query = this.#db.selectFrom('workflow_runs').where('repo_id', '=', repoId);
    if (filter.workflowFile !== undefined) {
      query = query.where('workflow_file', '=', filter.workflowFile);
    }
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    const rows = await query
      .selectAll()
      .orderBy('number', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const count = await query
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return { runs: rows.map(toRun), total: Number(count.total) };
  }

  /** The runs of a repository at any of these commits (at most 500 of them). */
  async listForShas(repoId: string, shas: readonly string[]): Promise<WorkflowRun[]> {
    if (shas.length === 0) return [];
    const rows = await this.#db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('sha', 'in', [...new Set(shas)].slice(0, 500))
      .execute();
    return rows.map(toRun);
  }

  /**
   * What commit checks are made of (`commitChecks`), for the runs of a repository at any of
   * these commits (at most 500): four columns, none of the run's settings parsed.
   */
  async verdictsForShas(repoId: string, shas: readonly string[]): Promise<RunVerdict[]> {
    const unique = [...new Set(shas)].slice(0, 500);
    const [only] = unique;
    if (only === undefined) return [];
    const rows =
      unique.length === 1
        ? await this.#verdictsAtOne({ repoId, sha: only })
        : await this.#verdicts().where('repo_id', '=', repoId).where('sha', 'in', unique).execute();
    return rows.map((row) => ({ ...row, number: Number(row.number) }));
  }

  /** Each run's workflow file and name, newest run first. */
  async listWorkflowNames(repoId: string): Promise<{ file: string; name: string }[]> {
    const rows = await this.#db
      .selectFrom('workflow_runs')
      .select(['workflow_file', 'workflow_name'])
      .where('repo_id', '=', repoId)
      .orderBy('number', 'desc')
      .execute();
    return rows.map((row) => ({ file: row.workflow_file, name: row.workflow_name }));
  }

  /** The ids of the unfinished runs a new run supersedes. */
  async listSuperseded(what: Supersedes): Promise<string[]> {
    let query = this.#db
      .selectFrom('workflow_runs')
      .select('id')
      .where('repo_id', '=', what.repoId)
      .where('status', 'in', ['PENDING', 'BLOCKED', 'RUNNING']);
    const group = what.concurrencyGroup;
    query =
      group === undefined
        ? query
            .where('ref', '=', what.ref)
            .where('workflow_file', '=', what.workflowFile)
            .where('event', '=', what.event)
        : query.where((eb) =>
            eb.or([
              eb('concurrency_group', '=', group),
              eb.and([
                eb('ref', '=', what.ref),
                eb('workflow_file', '=', what.workflowFile),
                eb('event', '=', what.event),
              ]),
            ]),
          );
    return (await query.execute()).map((row) => row.id);
  }

  /**
   * The unfinished runs of a repository's `concurrency` group, oldest first, with whether each
   * is queued behind the group.
   */
  async listUnfinishedOfGroup(
    repoId: string,
    group: string,
  ): Promise<{ id: string; queued: boolean }[]> {
    const rows = await this.#db
      .selectFrom('workflow_runs')
      .select(['id', 'concurrency_queued'])
      .where('repo_id', '=', repoId)
      .where('concurrency_group', '=', group)
      .where('status', 'in', ['PENDING', 'BLOCKED', 'RUNNING'])
      .orderBy('number')
      .execute();
    return rows.map((row) => ({ id: row.id, queued: Boolean(row.concurrency_queued) }));
  }

  /**
   * Takes a run out of its group's queue. Conditional on it being queued, so of replicas
   * releasing the same run one does it; answers whether this call did.
   */
  async release(runId: string, now: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('workflow_runs')
      .set({ concurrency_queued: false, updated_at: now })
      .where('id', '=', runId)
      .where('concurrency_queued', '=', true)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Stores the status its jobs add up to; `stopped` also stamps the stop time. */
  async setStatus(runId: string, status: WorkflowRunStatus, stopped: boolean, now: number) {
    await this.#db
      .updateTable('workflow_runs')
      .set({ status, updated_at: now, ...(stopped ? { stopped_at: now } : {}) })
      .where('id', '=', runId)
      .execute();
  }

  /**
   * A finished run starts over as its next attempt: waiting again, with no start or stop time.
   * Returns the new attempt's number.
   */
  async restart(runId: string, now: number): Promise<number> {
    const row = await this.#db
      .updateTable('workflow_runs')
      .set((eb) => ({
        status: 'PENDING',
        started_at: null,
        stopped_at: null,
        updated_at: now,
        attempt: eb('attempt', '+', 1),
      }))
      .where('id', '=', runId)
      .returning('attempt')
      .executeTakeFirstOrThrow();
    return Number(row.attempt);
  }

  /** A waiting run becomes running when its first job is claimed. */
  async markStarted(runId: string, now: number): Promise<void> {
    await this.#db
      .updateTable('workflow_runs')
      .set({ status: 'RUNNING', started_at: now, updated_at: now })
      .where('id', '=', runId)
      .where('status', 'in', ['PENDING', 'BLOCKED'])
      .execute();
  }

  /** The repository of a run, as the ids its `tasks_version` scopes are named by. */
  async findRepoOf(runId: string): Promise<{ id: string; ownerId: string } | undefined> {
    const row = await this.#db
      .selectFrom('workflow_runs')
      .innerJoin('repositories', 'repositories.id', 'workflow_runs.repo_id')
      .select(['repositories.id', 'repositories.owner_id'])
      .where('workflow_runs.id', '=', runId)
      .executeTakeFirst();
    return row === undefined ? undefined : { id: row.id, ownerId: row.owner_id };
  }

  /** The owner handle and name of a repository, for a task's context. */
  async getRepoName(repoId: string): Promise<{ owner: string; name: string }> {
    return this.#db
      .selectFrom('repositories')
      .innerJoin('users', 'users.id', 'repositories.owner_id')
      .select(['repositories.name', 'users.handle as owner'])
      .where('repositories.id', '=', repoId)
      .executeTakeFirstOrThrow();
  }
}

/** A run's stored status for the aggregate of its jobs (job-status.ts). */
export function runStatusOf(
  status: ReturnType<typeof aggregateStatus>,
): WorkflowRunsTable['status'] {
  switch (status) {
    case 'unknown':
      return 'PENDING';
    default:
      return status.toUpperCase() as WorkflowRunsTable['status'];
  }
}
