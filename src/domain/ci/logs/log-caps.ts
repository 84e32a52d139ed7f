import { BoundedMap } from '../../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../../lib/cache-registry.ts';
import { withDigitGroups } from '../../../lib/digit-groups.ts';
import type { TaskReportStore } from '../task-report.store.ts';
import { DEFAULT_LOG_LIMITS, type LogLimits } from './log-limits.ts';
import type { AppendLimit, TaskLogs } from './task-logs.ts';

/** Room kept under the task cap for the row that says the log was truncated. */
const MARKER_BYTES = 512;

/**
 * A growing log's bytes are recorded, and its repository's sum asked, each time it has grown by
 * this much: a repository passes its cap by at most this much per task logging at once.
 */
const CHECKPOINT_BYTES = 1024 * 1024;

/** Tasks whose last checkpoint, or whose truncation, this process remembers. */
const REMEMBERED_TASKS = 10_000;

export type TruncationReason = 'task' | 'repository';

/**
 * The caps on what a runner may upload (log-limits.ts), kept for UpdateLog.
 *
 * Past a cap, the task's log gets one last row saying so and is marked truncated; every row sent
 * for it afterwards is acknowledged without being stored. Acknowledging is what stops a runner:
 * one that is refused resends the same rows until the job ends, and one told less than it had
 * acknowledged gives up its report ("submitted logs are lost"). So a truncated log answers the
 * highest row index the runner has sent, never less than it answered before.
 */
export class LogCaps {
  readonly #limits: LogLimits;
  readonly #logs: TaskLogs;
  readonly #reports: TaskReportStore;
  /** Task → its log's bytes at the last repository check. */
  readonly #checked = new BoundedMap<number, number>(REMEMBERED_TASKS);
  /** Truncated task → the highest `ack_index` answered for it. */
  readonly #dropping = new BoundedMap<number, number>(REMEMBERED_TASKS);

  /** Declares its two caches to `caches` (the composition root's registry) when given. */
  constructor(
    logs: TaskLogs,
    reports: TaskReportStore,
    limits = DEFAULT_LOG_LIMITS,
    caches?: CacheRegistry,
  ) {
    this.#logs = logs;
    this.#reports = reports;
    this.#limits = limits;
    // Immutable: a task's checkpoint only grows and its truncation is final until it is sealed.
    const freshness = 'immutable';
    const bound = `${withDigitGroups(REMEMBERED_TASKS)} tasks`;
    caches?.add({ name: 'ci_log_checkpoints', key: 'task id', freshness, bound }, this.#checked);
    caches?.add({ name: 'ci_log_truncations', key: 'task id', freshness, bound }, this.#dropping);
  }

  /** How far one append may take a task's log: the task caps, less room for the last row. */
  get taskLimit(): AppendLimit {
    return {
      bytes: this.#limits.maxBytesPerTask - MARKER_BYTES,
      rows: this.#limits.maxRowsPerTask - 1,
    };
  }

  /** Whether rows sent for this task are dropped (`truncated` as read from its row, if read). */
  dropping(taskId: number, truncated = false): boolean {
    if (truncated && !this.#dropping.has(taskId)) this.#remember(this.#dropping, taskId, 0);
    return this.#dropping.has(taskId);
  }

  /**
   * The `ack_index` for rows dropped from a truncated log: everything the runner sent, and never
   * less than answered before or than what is stored.
   */
  acknowledgeDropped(taskId: number, sentEnd: number, stored: number): number {
    const ack = Math.max(this.#dropping.get(taskId) ?? 0, sentEnd, stored);
    this.#remember(this.#dropping, taskId, ack);
    return ack;
  }

  /**
   * Whether the task's repository's stored logs have reached their cap. Asked of the database
   * when this process first sees the task and each time its log has grown by a checkpoint since
   * (recording the task's bytes first, so the sum counts them); in between the answer is no.
   */
  async repositoryFull(taskId: number): Promise<boolean> {
    const bytes = await this.#logs.byteCount(taskId);
    const last = this.#checked.get(taskId);
    if (last !== undefined && bytes - last < CHECKPOINT_BYTES) return false;
    this.#remember(this.#checked, taskId, bytes);
    await this.#reports.recordLogBytes(taskId, bytes);
    return (await this.#reports.repoLogBytes(taskId)) >= this.#limits.maxBytesPerRepo;
  }

  /**
   * Ends the task's log at `stored` rows with a row saying why, and marks it truncated. Another
   * replica may have done so already (its row says so); then nothing is written twice.
   */
  async truncate(taskId: number, stored: number, reason: TruncationReason): Promise<void> {
    const held = await this.#reports.findHeld(taskId);
    if (held?.logTruncated !== true) {
      const bytes = await this.#logs.byteCount(taskId);
      const content =
        reason === 'task'
          ? `Log truncated at ${bytes} bytes: a task's log may hold ${this.#limits.maxBytesPerTask} bytes and ${this.#limits.maxRowsPerTask} lines. Later output was not stored.`
          : `Log truncated at ${bytes} bytes: this repository's stored logs reached ${this.#limits.maxBytesPerRepo} bytes. Later output was not stored.`;
      await this.#logs.append(taskId, stored, [{ time: new Date(), content }]);
      await this.#reports.markLogTruncated(taskId, await this.#logs.byteCount(taskId));
    }
    this.#remember(this.#dropping, taskId, this.#dropping.get(taskId) ?? 0);
  }

  /** The task's log is sealed: nothing more is remembered for it. */
  forget(taskId: number): void {
    this.#checked.delete(taskId);
    this.#dropping.delete(taskId);
  }

  #remember(map: BoundedMap<number, number>, taskId: number, value: number): void {
    map.set(taskId, value);
  }
}
