import type { LogRow } from '../logs/task-logs.ts';
import type { AnnotationStore } from './annotation.store.ts';
import type { Annotation } from './annotation.types.ts';
import { type AnnotationCommand, parseAnnotationCommand } from './annotation-command.ts';

/** Annotations kept per level and job (GitHub keeps a bounded number too). */
export const MAX_ANNOTATIONS_PER_LEVEL = 50;

/**
 * Turns the `::error`/`::warning`/`::notice` lines of a job's log into annotations as its rows
 * are stored. Invariant: a job gets at most MAX_ANNOTATIONS_PER_LEVEL annotations of each level,
 * and a batch of rows costs one scan of each row for `::` (parseAnnotationCommand is linear and
 * bounded) plus, only when the batch holds commands, one count and one insert: a log of nothing
 * but commands costs queries per batch, never per line. The counts are read from the database
 * for each such batch, so they hold across replicas and re-runs; a row keys its annotation, so a
 * batch sent again stores nothing twice.
 */
export class AnnotationCollector {
  readonly #store: AnnotationStore;

  constructor(store: AnnotationStore) {
    this.#store = store;
  }

  /** Stores the annotations asked for by `rows`, the job's rows from row `first` on. */
  async collect(taskId: number, first: number, rows: readonly LogRow[]): Promise<void> {
    const commands: { command: AnnotationCommand; row: number }[] = [];
    for (const [offset, row] of rows.entries()) {
      // Most rows are not commands: one search before any parsing.
      if (!row.content.includes('::')) continue;
      const command = parseAnnotationCommand(row.content);
      if (command !== undefined) commands.push({ command, row: first + offset });
    }
    if (commands.length === 0) return;
    const counts = await this.#store.countsOf(taskId);
    const kept: Annotation[] = [];
    for (const { command, row } of commands) {
      const count = counts.get(command.level) ?? 0;
      if (count >= MAX_ANNOTATIONS_PER_LEVEL) continue;
      counts.set(command.level, count + 1);
      kept.push({ ...command, taskId, logRow: row });
    }
    await this.#store.add(kept);
  }
}
