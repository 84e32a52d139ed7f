import type { ParsedFile } from './parsed-files.ts';
import type { ScheduleStore } from './schedule.store.ts';
import { cronMatches, parseCron } from './workflow/cron.ts';
import { scheduleCrons } from './workflow/triggers.ts';

/** What the schedule needs from the run trigger: starting one workflow of a repository. */
export type ScheduledRunStarter = (repoId: string, workflowFile: string) => Promise<unknown>;

/**
 * The crons of a repository's `on: schedule` workflows, recorded when its default branch is
 * pushed (the run trigger calls `record`, which the schedule's clock below then reads).
 */
export class ScheduleRecords {
  readonly #store: ScheduleStore;

  constructor(store: ScheduleStore) {
    this.#store = store;
  }

  /**
   * Records the schedules of the default branch's workflow files (parsed once for the push),
   * replacing earlier ones.
   */
  async record(repoId: string, files: readonly ParsedFile[]): Promise<void> {
    const rows = files.flatMap(({ name, parsed }) => {
      // A workflow that does not parse schedules nothing; its push already recorded why.
      if (!('workflow' in parsed)) return [];
      try {
        const crons = scheduleCrons(parsed.workflow.triggers).filter(isCron);
        return crons.length === 0 ? [] : [{ workflowFile: name, crons }];
      } catch {
        return [];
      }
    });
    await this.#store.replace(repoId, rows);
  }
}

/**
 * `on: schedule`. Every minute one replica — whichever inserts the minute's row in
 * `ci_schedule_ticks` first — starts the workflows whose recorded cron matches it (UTC). A
 * minute is never evaluated twice, and one missed while no replica ran is not made up for.
 */
export class ScheduleService {
  readonly #store: ScheduleStore;
  readonly #start: ScheduledRunStarter;

  /** `start` starts one workflow of a repository (`RunTriggerService.onSchedule`). */
  constructor(deps: { readonly store: ScheduleStore; readonly start: ScheduledRunStarter }) {
    this.#store = deps.store;
    this.#start = deps.start;
  }

  /**
   * Evaluates the minute of `now` if no replica has yet; returns how many runs it started.
   */
  async tick(now = Date.now()): Promise<number> {
    const minute = Math.floor(now / 60_000);
    if (!(await this.#store.claimMinute(minute))) return 0;
    const at = new Date(minute * 60_000);
    let started = 0;
    for (const schedule of await this.#store.listAll()) {
      if (!schedule.crons.some((line) => cronMatches(parseCron(line), at))) continue;
      await this.#start(schedule.repoId, schedule.workflowFile);
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
