import type { Kysely, Selectable } from 'kysely';
import type { CiAnnotationsTable, Tables } from '../../../db/tables.ts';
import type { Annotation, RunAnnotation } from './annotation.types.ts';
import type { AnnotationLevel } from './annotation-command.ts';

function toAnnotation(row: Selectable<CiAnnotationsTable>): Annotation {
  const position = (value: number | null) => (value === null ? null : Number(value));
  return {
    taskId: Number(row.task_id),
    logRow: Number(row.log_row),
    level: row.level,
    message: row.message,
    title: row.title,
    file: row.file,
    line: position(row.line),
    endLine: position(row.end_line),
    col: position(row.col),
    endCol: position(row.end_col),
  };
}

/** `ci_annotations`: what jobs' logs asked to annotate, a bounded number per job. */
export class AnnotationStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** How many annotations of each level the job has. */
  async countsOf(taskId: number): Promise<Map<AnnotationLevel, number>> {
    const rows = await this.#db
      .selectFrom('ci_annotations')
      .select(['level', (eb) => eb.fn.countAll<number | string>().as('count')])
      .where('task_id', '=', taskId)
      .groupBy('level')
      .execute();
    return new Map(rows.map((row) => [row.level, Number(row.count)]));
  }

  /** Stores annotations; one already stored for its log row (a resent batch) is kept. */
  async add(annotations: readonly Annotation[]): Promise<void> {
    if (annotations.length === 0) return;
    await this.#db
      .insertInto('ci_annotations')
      .values(
        annotations.map((a) => ({
          task_id: a.taskId,
          level: a.level,
          message: a.message,
          title: a.title,
          file: a.file,
          line: a.line,
          end_line: a.endLine,
          col: a.col,
          end_col: a.endCol,
          log_row: a.logRow,
        })),
      )
      .onConflict((oc) => oc.columns(['task_id', 'log_row']).doNothing())
      .execute();
  }

  /** The annotations of one job, in the order they were printed. */
  async listOfTask(taskId: number): Promise<Annotation[]> {
    const rows = await this.#db
      .selectFrom('ci_annotations')
      .selectAll()
      .where('task_id', '=', taskId)
      .orderBy('log_row')
      .execute();
    return rows.map(toAnnotation);
  }

  /** The annotations of every job of the runs given, by job then as printed; at most `limit`. */
  async listOfRuns(runIds: readonly string[], limit: number): Promise<RunAnnotation[]> {
    if (runIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('ci_annotations as a')
      .innerJoin('ci_tasks as t', 't.id', 'a.task_id')
      .selectAll('a')
      .select('t.name as job_name')
      .where('t.run_id', 'in', [...runIds])
      .orderBy('a.task_id')
      .orderBy('a.log_row')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ ...toAnnotation(row), jobName: row.job_name }));
  }
}
