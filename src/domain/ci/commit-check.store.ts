import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import type { CommitJob } from './required-checks.ts';

/** Most jobs read for one commit: far more than any workflow set makes for it. */
const MAX_JOBS_OF_COMMIT = 2000;

/** The jobs of a repository's runs for one commit, which its checks are made of. */
export class CommitCheckStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Every job of the repository's runs at `sha`, newest run first. */
  async jobsOfCommit(repoId: string, sha: string): Promise<CommitJob[]> {
    const rows = await this.#db
      .selectFrom('workflow_runs')
      .innerJoin('ci_tasks', 'ci_tasks.run_id', 'workflow_runs.id')
      .select([
        'workflow_runs.number',
        'workflow_runs.workflow_name',
        'workflow_runs.event',
        'ci_tasks.id',
        'ci_tasks.name',
        'ci_tasks.status',
      ])
      .where('workflow_runs.repo_id', '=', repoId)
      .where('workflow_runs.sha', '=', sha)
      .orderBy('workflow_runs.number', 'desc')
      .orderBy('ci_tasks.id', 'desc')
      .limit(MAX_JOBS_OF_COMMIT)
      .execute();
    return rows.map((row) => ({
      runNumber: Number(row.number),
      workflowName: row.workflow_name,
      event: row.event,
      jobId: Number(row.id),
      jobName: row.name,
      status: row.status,
    }));
  }
}
