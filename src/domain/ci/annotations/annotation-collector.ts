import type { LogRow } from '../logs/task-log-store.ts';
import type { Annotation, AnnotationStore } from './annotation.store.ts';
import { type AnnotationLevel, parseAnnotationCommand } from './annotation-command.ts';

/** Annotations kept per level and job, as GitHub keeps them per step. */
export const MAX_ANNOTATIONS_PER_LEVEL = 50;

type Tally = { levels: Map<AnnotationLevel, number>; next: number };

/**
 * Turns the `::error`/`::warning`/`::notice` lines of a job's log into annotations as its rows
 * are stored. Invariant: a job gets at most MAX_ANNOTATIONS_PER_LEVEL annotations of each level,
 * and each row costs one scan for `::` (parseAnnotationCommand is linear and bounded), so a log
 * of nothing but commands costs what its bytes cost, never a query per line. The counts of a job
 * being written live in memory (read once from the database, e.g. after a restart or on another
 * replica), and are forgotten when its log is sealed.
 */
export class AnnotationCollector {
  readonly #store: AnnotationStore;
  readonly #tallies = new Map<number, Tally>();

  constructor(store: AnnotationStore) {
    this.#store = store;
  }

  /** Stores the annotations asked for by `rows`, the job's rows from row `first` on. */
  async collect(taskId: number, first: number, rows: readonly LogRow[]): Promise<void> {
    let found: Annotation[] | undefined;
    let tally: Tally | undefined;
    for (const [offset, row] of rows.entries()) {
      // Most rows are not commands: one search before any parsing.
      if (!row.content.includes('::')) continue;
      const command = parseAnnotationCommand(row.content);
      if (command === undefined) continue;
      tally ??= await this.#tally(taskId);
      const count = tally.levels.get(command.level) ?? 0;
      if (count >= MAX_ANNOTATIONS_PER_LEVEL) continue;
      tally.levels.set(command.level, count + 1);
      found ??= [];
      found.push({ ...command, taskId, seq: tally.next++, logRow: first + offset });
    }
    if (found !== undefined) await this.#store.add(found);
  }

  /** The job's log is sealed: no more rows will come. */
  forget(taskId: number): void {
    this.#tallies.delete(taskId);
  }

  async #tally(taskId: number): Promise<Tally> {
    let tally = this.#tallies.get(taskId);
    if (tally === undefined) {
      tally = await this.#store.countsOf(taskId);
      if (this.#tallies.size > 10_000) this.#tallies.clear();
      this.#tallies.set(taskId, tally);
    }
    return tally;
  }
}
