import type { Readable } from 'node:stream';

/** A log line as the runner sends it. */
export type LogRow = { readonly time: Date; readonly content: string };

/** How far one append may take a task's log: its stored bytes and rows after the append. */
export type AppendLimit = { readonly bytes: number; readonly rows: number };

/**
 * A window of a log for a page: `count` rows from row `from` of `total`. `span` is where their
 * bytes lie in the log as stored, which within an attempt is only appended to: the same span at
 * the same row names the same rows, and a page built from them before needs not read them
 * (`readRows` reads and decodes them once, when first called).
 */
export type LogWindow = {
  readonly from: number;
  readonly total: number;
  readonly count: number;
  readonly span: { readonly start: number; readonly end: number };
  readRows(): Promise<string[]>;
};

/**
 * Where the logs of CI tasks are kept, row by row. The domain decides what is written (caps,
 * masking) and who reads it; an implementation keeps the lines and finds any page of them
 * without reading the rest (storage/task-log-files.ts keeps them as files under the data
 * directory, which replicas share). A stored line is `<RFC 3339 time> <content>`.
 */
export interface TaskLogs {
  /** How many rows the task's log holds. */
  rowCount(taskId: number): Promise<number>;
  /** How many bytes the task's log holds. */
  byteCount(taskId: number): Promise<number>;
  /**
   * Appends rows as rows `from`, `from + 1`, … if `from` is the current row count; returns the
   * new count. Another `from` changes nothing. Only the leading rows that keep the log within
   * `limit` are written: a new count below `from + rows.length` says the rest did not fit.
   */
  append(
    taskId: number,
    from: number,
    rows: readonly LogRow[],
    limit?: AppendLimit,
  ): Promise<number>;
  /** Lets go of what an append keeps open for the task (it finished). */
  close(taskId: number): Promise<void>;
  /** Lets go of everything kept open (the process stops). */
  closeAll(): Promise<void>;
  /** Rows `from` … `from + limit - 1` (fewer at the end), as stored lines. */
  readRows(taskId: number, from: number, limit: number): Promise<string[]>;
  /**
   * A window of rows for a page: from row `from` forwards, or ending just before row `before`,
   * at most `maxRows` rows and `maxBytes` of stored text, and at least one row when there is one.
   */
  readWindow(
    taskId: number,
    at: { readonly from: number } | { readonly before: number },
    maxRows: number,
    maxBytes: number,
  ): Promise<LogWindow>;
  /** The whole log as stored, one line a row, streamed. */
  rawLog(taskId: number): Promise<Readable>;
  /** Deletes a task's log (retention). */
  remove(taskId: number): Promise<void>;
}
