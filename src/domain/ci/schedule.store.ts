import { type Kysely, sql } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import { parseStringArray } from '../runners/runner-input.ts';

/** A workflow file's `on: schedule` cron lines, as recorded from the default branch. */
export type WorkflowSchedule = {
  readonly repoId: string;
  readonly workflowFile: string;
  readonly crons: readonly string[];
};

/** Queries over `ci_schedules` and the per-minute claims in `ci_schedule_ticks`. */
export class ScheduleStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Replaces a repository's schedules with `schedules`, in one transaction. */
  async replace(repoId: string, schedules: readonly Omit<WorkflowSchedule, 'repoId'>[]) {
    const rows = schedules.map((schedule) => ({
      repo_id: repoId,
      workflow_file: schedule.workflowFile,
      crons: JSON.stringify(schedule.crons),
    }));
    await this.#db.transaction().execute(async (trx) => {
      await trx.deleteFrom('ci_schedules').where('repo_id', '=', repoId).execute();
      if (rows.length > 0) await trx.insertInto('ci_schedules').values(rows).execute();
    });
  }

  /**
   * Claims a minute for this process: true for the first caller on any replica, false after.
   * Claims older than an hour are dropped on the way (they only record that a minute was taken).
   */
  async claimMinute(minute: number): Promise<boolean> {
    const claimed = await this.#db
      .insertInto('ci_schedule_ticks')
      .values({ minute })
      .onConflict((oc) => oc.column('minute').doNothing())
      .returning('minute')
      .executeTakeFirst();
    if (claimed === undefined) return false;
    await this.#db
      .deleteFrom('ci_schedule_ticks')
      .where('minute', '<', sql<number>`${minute - 60}`)
      .execute();
    return true;
  }

  /** Every recorded schedule. */
  async listAll(): Promise<WorkflowSchedule[]> {
    const rows = await this.#db.selectFrom('ci_schedules').selectAll().execute();
    return rows.map((row) => ({
      repoId: row.repo_id,
      workflowFile: row.workflow_file,
      crons: parseStringArray(row.crons),
    }));
  }
}
