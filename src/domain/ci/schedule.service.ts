import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { WorkflowFile } from '../../git/workflow-files.ts';
import { parseStringArray } from '../runners/runner-input.ts';
import { fileName } from './event-payloads.ts';
import { cronMatches, parseCron } from './workflow/cron.ts';
import { scheduleCrons } from './workflow/triggers.ts';
import { parseWorkflow } from './workflow/workflow-parse.ts';

/** What the schedule needs from the run trigger: starting one workflow of a repository. */
export type ScheduledRunStarter = (repoId: string, workflowFile: string) => Promise<unknown>;

/**
 * `on: schedule`. The crons of the workflows on a repository's default branch are recorded when
 * that branch is pushed; every minute one replica — whichever inserts the minute's row in
 * `ci_schedule_ticks` first — starts the workflows whose cron matches it (UTC). A minute is
 * never evaluated twice, and one missed while no replica ran is not made up for.
 */
export class ScheduleService {
  readonly #db: Db;
  #start: ScheduledRunStarter | undefined;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Where a matching schedule starts its run (set once, in the composition root). */
  startRunsWith(start: ScheduledRunStarter): void {
    this.#start = start;
  }

  /** Records the schedules of the default branch's workflow files, replacing earlier ones. */
  async record(repoId: string, files: readonly WorkflowFile[]): Promise<void> {
    const rows = files.flatMap((file) => {
      try {
        const name = fileName(file);
        const crons = scheduleCrons(parseWorkflow(name, file.content).triggers).filter(isCron);
        return crons.length === 0
          ? []
          : [{ repo_id: repoId, workflow_file: name, crons: JSON.stringify(crons) }];
      } catch {
        // A workflow that does not parse schedules nothing; its push already recorded why.
        return [];
      }
    });
    await this.#db.transaction().execute(async (trx) => {
      await trx.deleteFrom('ci_schedules').where('repo_id', '=', repoId).execute();
      if (rows.length > 0) await trx.insertInto('ci_schedules').values(rows).execute();
    });
  }

  /**
   * Evaluates the minute of `now` if no replica has yet; returns how many runs it started.
   */
  async tick(now = Date.now()): Promise<number> {
    const minute = Math.floor(now / 60_000);
    const claimed = await this.#db
      .insertInto('ci_schedule_ticks')
      .values({ minute })
      .onConflict((oc) => oc.column('minute').doNothing())
      .returning('minute')
      .executeTakeFirst();
    if (claimed === undefined) return 0;
    // Old ticks are only a claim record; an hour of them is plenty.
    await this.#db
      .deleteFrom('ci_schedule_ticks')
      .where('minute', '<', sql<number>`${minute - 60}`)
      .execute();
    const at = new Date(minute * 60_000);
    let started = 0;
    for (const schedule of await this.#db.selectFrom('ci_schedules').selectAll().execute()) {
      const crons = parseStringArray(schedule.crons);
      if (!crons.some((line) => cronMatches(parseCron(line), at))) continue;
      await this.#start?.(schedule.repo_id, schedule.workflow_file);
      started += 1;
    }
    return started;
  }
}

function isCron(line: string): boolean {
  try {
    parseCron(line);
    return true;
  } catch {
    return false;
  }
}
