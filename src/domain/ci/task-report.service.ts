import type { CiTaskStatus } from '../../db/tables.ts';
import { BoundedMap } from '../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { Conflict, Forbidden } from '../errors.ts';
import { AnnotationCollector } from './annotations/annotation-collector.ts';
import type { CiTaskResult } from './ci.types.ts';
import type { CiSecretService } from './ci-secret.service.ts';
import type { CiStores } from './ci-stores.ts';
import type { CiTaskService } from './ci-task.service.ts';
import { LogCaps } from './logs/log-caps.ts';
import { type LogLimits, MAX_ROWS_PER_CALL } from './logs/log-limits.ts';
import { SecretMasks } from './logs/secret-masks.ts';
import type { LogRow, TaskLogs } from './logs/task-logs.ts';
import type { RunLifecycle } from './run-lifecycle.ts';
import { storeOutputs } from './task-outputs.ts';
import type { HeldTask } from './task-report.store.ts';
import { type StepReport, storeSteps } from './task-steps.ts';

export type { StepReport };

export type TaskReport = {
  readonly taskId: number;
  /** Undefined while the task runs (RESULT_UNSPECIFIED): a heartbeat. */
  readonly result: CiTaskResult | undefined;
  readonly steps: readonly StepReport[];
  readonly outputs: Readonly<Record<string, string>>;
};

export type TaskReportAnswer = {
  /** The stored status: `running` is answered as UNSPECIFIED, anything else stops the runner. */
  readonly status: CiTaskStatus;
  /** Every output key stored for the task, so the runner stops resending them. */
  readonly sentOutputs: string[];
};

/**
 * UpdateTask and UpdateLog: what a runner reports about the task it holds. Only the runner that
 * claimed a task may report on it; a finished task never changes again, so the runner's last
 * report after a cancellation is acknowledged without undoing the cancel.
 */
export class TaskReportService {
  readonly #stores: CiStores;
  readonly #tasks: CiTaskService;
  readonly #lifecycle: RunLifecycle;
  readonly #logs: TaskLogs;
  readonly #logRetentionMs: number;
  readonly #caps: LogCaps;
  readonly #annotations: AnnotationCollector;
  readonly #masks: SecretMasks;

  constructor(deps: {
    stores: CiStores;
    tasks: CiTaskService;
    lifecycle: RunLifecycle;
    logs: TaskLogs;
    secrets: CiSecretService;
    /** How long logs of finished tasks are kept (SERVICE_CI_LOG_RETENTION). */
    logRetentionMs?: number;
    /** The caps on uploaded logs (`service.ci.log-max-*`); log-limits.ts has the defaults. */
    logLimits?: LogLimits;
    /** Where the task holders' and masks' caches are declared (the composition root's). */
    caches?: CacheRegistry;
  }) {
    deps.caches?.add(
      { name: 'ci_task_holders', key: 'task id', freshness: 'immutable', bound: '10,000 tasks' },
      this.#holders,
    );
    this.#masks = new SecretMasks(deps.secrets, deps.caches);
    this.#logRetentionMs = deps.logRetentionMs ?? 90 * 86_400_000;
    this.#caps = new LogCaps(deps.logs, deps.stores.reports, deps.logLimits, deps.caches);
    this.#annotations = new AnnotationCollector(deps.stores.annotations);
    this.#stores = deps.stores;
    this.#tasks = deps.tasks;
    this.#lifecycle = deps.lifecycle;
    this.#logs = deps.logs;
  }

  /** Task id → its runner, for log uploads: which runner holds a task never changes. */
  readonly #holders = new BoundedMap<number, string>(10_000);

  /**
   * Checks that the task is the runner's, for UpdateLog: a task's runner never changes once it
   * claimed it, so after the first check the answer comes from memory (the seal is still read
   * from the row when it matters, by `updateLog`).
   */
  async #holds(runner: { readonly id: string }, taskId: number): Promise<boolean> {
    const holder = this.#holders.get(taskId);
    if (holder !== undefined) return holder === runner.id;
    const task = await this.#owned(runner, taskId);
    if (task.logSealed) return false;
    this.#caps.dropping(taskId, task.logTruncated);
    this.#holders.set(taskId, runner.id);
    return true;
  }

  async #owned(runner: { readonly id: string }, taskId: number): Promise<HeldTask> {
    const task = await this.#stores.reports.findHeld(taskId);
    if (task === undefined || task.runnerId !== runner.id) {
      throw new Forbidden('invalid runner for task');
    }
    return task;
  }

  async updateTask(
    runner: { readonly id: string },
    report: TaskReport,
    now = Date.now(),
  ): Promise<TaskReportAnswer> {
    const task = await this.#owned(runner, report.taskId);
    const refused = await storeOutputs(this.#stores.reports, report.taskId, report.outputs);
    if (task.status !== 'running') {
      // A report after a cancel or a sweep: the job's result stays, but its steps are as far as
      // the runner got (a step cut short shows as cancelled, with the rows it wrote).
      await storeSteps(this.#stores.reports, report.taskId, report.steps, true);
      // The last report: an ephemeral runner's one task is over.
      if (report.result !== undefined) await this.#tasks.retireEphemeral(runner.id);
    } else {
      await storeSteps(
        this.#stores.reports,
        report.taskId,
        report.steps,
        report.result !== undefined,
      );
      if (report.result === undefined) {
        await this.#stores.reports.heartbeat(report.taskId, now);
      } else {
        const done = await this.#tasks.completeTask(report.taskId, runner.id, report.result, now);
        if (done.completed) {
          this.#masks.forget(report.taskId);
          await this.#stores.transaction((stores) =>
            this.#lifecycle.settle(stores, task.runId, now),
          );
        }
      }
    }
    const stored = await this.#stores.reports.findHeld(report.taskId);
    const sentOutputs = await this.#stores.reports.listOutputNames(report.taskId);
    return { status: stored?.status ?? 'cancelled', sentOutputs: [...sentOutputs, ...refused] };
  }

  /**
   * Stores log rows and answers how many rows are stored (`ack_index`). With `ack` the rows
   * stored so far: no rows, a gap (`index > ack`) or nothing new (`index + rows ≤ ack`) change
   * nothing; otherwise the rows from `ack` on are appended, with every secret value of the task
   * masked. `noMore` seals the log, also with zero rows, and sealing again is acknowledged again;
   * new rows for a sealed log are a conflict (`already_exists`), as in Gitea.
   *
   * Caps (log-caps.ts): one call stores at most MAX_ROWS_PER_CALL rows (the rest stay
   * unacknowledged, so the runner sends them again, and such a call cannot seal). A log that
   * would pass the task's caps, or whose repository's logs have reached theirs, gets a last row
   * saying it was truncated; from then on every row sent is acknowledged and dropped.
   */
  async updateLog(
    runner: { readonly id: string },
    taskId: number,
    index: number,
    sent: readonly LogRow[],
    sentNoMore: boolean,
  ): Promise<number> {
    const rows = sent.length > MAX_ROWS_PER_CALL ? sent.slice(0, MAX_ROWS_PER_CALL) : sent;
    const noMore = sentNoMore && rows.length === sent.length;
    // Unsealed logs of this runner's tasks skip the row lookup; anything else reads the row.
    const open = await this.#holds(runner, taskId);
    const held = open ? undefined : await this.#owned(runner, taskId);
    const sealed = held?.logSealed ?? false;
    let ack = await this.#logs.rowCount(taskId);
    if (this.#caps.dropping(taskId, held?.logTruncated)) {
      const dropped = this.#caps.acknowledgeDropped(taskId, index + rows.length, ack);
      if (noMore && !sealed) await this.#seal(taskId, ack);
      return dropped;
    }
    const fresh = index <= ack && index + rows.length > ack;
    if (sealed) {
      if (fresh) throw new Conflict('log file has been archived');
      return ack;
    }
    if (fresh) {
      if (await this.#caps.repositoryFull(taskId)) {
        return this.#truncate(taskId, ack, 'repository', index + rows.length, noMore);
      }
      const mask = await this.#masks.maskFor(taskId);
      const unseen = ack === index ? rows : rows.slice(ack - index);
      // A task without secrets (most) stores the rows as they came, without a copy of each.
      const masked =
        mask === undefined
          ? unseen
          : unseen.map((row) => ({ time: row.time, content: mask(row.content) }));
      const stored = await this.#logs.append(taskId, ack, masked, this.#caps.taskLimit);
      // Annotations come from the rows as stored: masked, and only those kept under the caps.
      await this.#annotations.collect(taskId, ack, masked.slice(0, Math.max(0, stored - ack)));
      if (stored < ack + masked.length) {
        return this.#truncate(taskId, stored, 'task', index + rows.length, noMore);
      }
      ack = stored;
    }
    if (noMore) await this.#seal(taskId, ack);
    return ack;
  }

  /** Truncates the log at `stored` rows; the rows sent up to `sentEnd` are acknowledged. */
  async #truncate(
    taskId: number,
    stored: number,
    reason: 'task' | 'repository',
    sentEnd: number,
    noMore: boolean,
  ): Promise<number> {
    await this.#caps.truncate(taskId, stored, reason);
    const rows = await this.#logs.rowCount(taskId);
    const ack = this.#caps.acknowledgeDropped(taskId, sentEnd, rows);
    if (noMore) await this.#seal(taskId, rows);
    return ack;
  }

  async #seal(taskId: number, rows: number): Promise<void> {
    await this.#stores.reports.sealLog(taskId, rows, await this.#logs.byteCount(taskId));
    this.#masks.forget(taskId);
    this.#holders.delete(taskId);
    this.#caps.forget(taskId);
    await this.#logs.close(taskId);
  }

  /**
   * Deletes the log files of tasks that stopped longer ago than the retention, a batch at a time;
   * `log_rows = -1` marks a task whose log is gone. Returns how many logs were removed.
   */
  async expireLogs(now = Date.now(), batch = 500): Promise<number> {
    const expired = await this.#stores.reports.listExpiredLogs(now - this.#logRetentionMs, batch);
    for (const taskId of expired) {
      await this.#logs.remove(taskId);
      await this.#stores.reports.markLogRemoved(taskId);
    }
    return expired.length;
  }
}
