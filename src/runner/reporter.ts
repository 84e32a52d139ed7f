/**
 * Reports one task the way the Go runners do: log rows through UpdateLog (at 1,000 rows, 3 s after
 * the first unsent row, or at a step change; resent from the server's `ack_index` after a failure),
 * step and task state through UpdateTask (at every step change and as a 5 s heartbeat, result
 * UNSPECIFIED until the end), outputs until the server lists them in `sent_outputs`, and
 * cancellation as soon as an UpdateTask answer carries a result.
 *
 * A cancel is only learnt from an UpdateTask answer (UpdateLog's answer carries no result), so
 * while a step runs the state is also polled every `runningPollMs` (500 ms): a step the server
 * cancels is stopped within about a second instead of at the next 5 s heartbeat. Between steps
 * and after the last one, only the heartbeat goes on.
 */
import { create } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { Result, UpdateLogRequestSchema } from '../gen/runner/v1/messages_pb.js';
import type { RunnerService } from '../gen/runner/v1/services_pb.js';
import type { Conclusion, JobSink } from './engine/task-input.ts';
import { EncodedLog } from './log-rows.ts';
import { errorMessage } from './thrown.ts';

/** Intervals and limits; tests shorten them. */
export type ReporterTiming = {
  readonly batchRows: number;
  readonly logLatencyMs: number;
  readonly heartbeatMs: number;
  /** How often the state is polled while a step runs, so a cancel is noticed quickly. */
  readonly runningPollMs: number;
  /** How long the final reports are retried. */
  readonly closeTimeoutMs: number;
  readonly retryMs: number;
};

/**
 * The Go runners flush at 100 rows; a step printing fast then makes an UpdateLog call for every
 * 100–200 rows, and encoding, sending and decoding those calls cost the runner and the server
 * more CPU than the step itself. Batches of 1,000 cut the calls tenfold; a slow log is still
 * sent 3 s after its first unsent row.
 */
export const DEFAULT_TIMING: ReporterTiming = {
  batchRows: 1000,
  logLatencyMs: 3000,
  heartbeatMs: 5000,
  runningPollMs: 500,
  closeTimeoutMs: 30_000,
  retryMs: 1000,
};

/** Largest output key and value a server keeps (Gitea's limits); larger ones are not sent. */
const MAX_OUTPUT_KEY = 255;
const MAX_OUTPUT_VALUE = 1024 * 1024;

type Timestamp = { seconds: bigint; nanos: number };
type Step = {
  result: Result;
  startedAt?: Timestamp;
  stoppedAt?: Timestamp;
  logIndex: bigint;
  logLength: bigint;
};

const RESULTS: Record<Conclusion, Result> = {
  success: Result.SUCCESS,
  failure: Result.FAILURE,
  cancelled: Result.CANCELLED,
  skipped: Result.SKIPPED,
};

function timestamp(ms = Date.now()): Timestamp {
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

/**
 * Rows in one UpdateLog: at most MAX_REQUEST_ROWS and MAX_REQUEST_BYTES of encoded rows, so a
 * backlog (a server that was away, a step that prints megabytes) never makes a request larger
 * than a server accepts. Always at least one row.
 */
const MAX_REQUEST_ROWS = 5000;
const MAX_REQUEST_BYTES = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Longest line sent, in UTF-16 units: Kiln stores 64 KiB of a row and refuses an UpdateLog body
 * over 2 MiB, so a longer line (a minified file printed whole) is cut here, where sending it
 * whole could never succeed, and the server keeps the same bytes it would have kept.
 */
const MAX_LINE_UNITS = 64 * 1024;

function cutLine(content: string): string {
  if (content.length <= MAX_LINE_UNITS) return content;
  // Not between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(content[MAX_LINE_UNITS - 1] ?? '')
    ? MAX_LINE_UNITS - 1
    : MAX_LINE_UNITS;
  return content.slice(0, end);
}

export class TaskReporter implements JobSink {
  readonly #client: Client<typeof RunnerService>;
  readonly #taskId: bigint;
  readonly #timing: ReporterTiming;
  readonly #onCancel: () => void;
  readonly #log: (message: string) => void;
  readonly #startedAt = timestamp();
  readonly #steps: Step[];
  /** Rows from `#acked` on, not yet acknowledged by the server. */
  readonly #rows = new EncodedLog();
  #acked = 0;
  #total = 0;
  /** End of the rows in the UpdateLog in flight (or acknowledged): later ones are unsent. */
  #sentEnd = 0;
  #outputs = new Map<string, string>();
  #latencyTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastStateAt = 0;
  /** State reports queued or in flight. */
  #statePending = 0;
  #stepRunning = false;
  #logChain: Promise<void> = Promise.resolve();
  #waitingFlush: Promise<boolean> | undefined;
  #stateChain: Promise<void> = Promise.resolve();
  #cancelled = false;

  constructor(options: {
    client: Client<typeof RunnerService>;
    taskId: bigint;
    stepCount: number;
    onCancel: () => void;
    log: (message: string) => void;
    timing?: ReporterTiming;
  }) {
    this.#client = options.client;
    this.#taskId = options.taskId;
    this.#timing = options.timing ?? DEFAULT_TIMING;
    this.#onCancel = options.onCancel;
    this.#log = options.log;
    this.#steps = Array.from({ length: options.stepCount }, () => ({
      result: Result.UNSPECIFIED,
      logIndex: 0n,
      logLength: 0n,
    }));
  }

  /** Sends the first state and starts the heartbeat (and the faster poll while a step runs). */
  start(): void {
    const tick = Math.min(this.#timing.heartbeatMs, this.#timing.runningPollMs);
    this.#heartbeat = setInterval(() => this.#tick(), tick);
    void this.#reportState();
  }

  /** A state report when one is due: never two at once, so a slow server is not piled up on. */
  #tick(): void {
    if (this.#statePending > 0) return;
    const since = Date.now() - this.#lastStateAt;
    const due = this.#stepRunning ? this.#timing.runningPollMs : this.#timing.heartbeatMs;
    if (since >= due * 0.9) void this.#reportState();
  }

  line(content: string): void {
    this.#rows.push(cutLine(content), Date.now());
    this.#total++;
    // Counted beyond the request in flight, so a fast step fills whole batches while it is out.
    if (this.#total - Math.max(this.#sentEnd, this.#acked) >= this.#timing.batchRows)
      void this.#flushLogs();
    else this.#latencyTimer ??= setTimeout(() => void this.#flushLogs(), this.#timing.logLatencyMs);
  }

  stepStarted(index: number): void {
    const step = this.#steps[index];
    if (!step) return;
    step.startedAt = timestamp();
    step.logIndex = BigInt(this.#total);
    this.#stepRunning = true;
    void this.#flushLogs();
    void this.#reportState();
  }

  stepFinished(index: number, conclusion: Conclusion): void {
    const step = this.#steps[index];
    if (!step) return;
    if (step.startedAt === undefined) step.logIndex = BigInt(this.#total);
    step.result = RESULTS[conclusion];
    step.stoppedAt = timestamp();
    step.logLength = BigInt(this.#total) - step.logIndex;
    this.#stepRunning = false;
    void this.#flushLogs();
    void this.#reportState();
  }

  /** Outputs of the job, sent with the final state (and resent until acknowledged). */
  setOutputs(outputs: Record<string, string>): void {
    for (const [key, value] of Object.entries(outputs)) {
      if (Buffer.byteLength(key) > MAX_OUTPUT_KEY || Buffer.byteLength(value) > MAX_OUTPUT_VALUE) {
        this.#log(`task ${this.#taskId}: output "${key.slice(0, 40)}" is too large to report`);
        continue;
      }
      this.#outputs.set(key, value);
    }
  }

  /** Final log flush with `no_more`, then the final state; each retried until acknowledged. */
  async finish(conclusion: Conclusion): Promise<void> {
    clearInterval(this.#heartbeat);
    clearTimeout(this.#latencyTimer);
    const deadline = Date.now() + this.#timing.closeTimeoutMs;
    // Old servers ignored `no_more` on an empty batch, so the last batch is never empty: once
    // the request in flight (the step end's flush) is answered, an empty row is added if nothing
    // is left to send.
    await this.#logChain;
    if (this.#rows.length === 0) this.line('');
    clearTimeout(this.#latencyTimer);
    while (this.#acked < this.#total) {
      const sent = await this.#queueLogs(true);
      if (this.#acked >= this.#total) break;
      if (Date.now() > deadline) return this.#log(`task ${this.#taskId}: final log upload gave up`);
      // A long backlog goes out in bounded requests back to back; only a failure waits.
      if (!sent) await sleep(this.#timing.retryMs);
    }
    const stoppedAt = timestamp();
    while (
      !(await this.#queueState({ result: RESULTS[conclusion], stoppedAt })) ||
      this.#outputs.size > 0
    ) {
      if (Date.now() > deadline)
        return this.#log(`task ${this.#taskId}: final state report gave up`);
      await sleep(this.#timing.retryMs);
    }
  }

  /** At most one ordinary flush waits behind the one in flight; it sends whatever is pending then. */
  #flushLogs(): Promise<boolean> {
    this.#waitingFlush ??= this.#queueLogs(false);
    return this.#waitingFlush;
  }

  /** Sends the unacknowledged rows; one request at a time. Answers whether the call succeeded. */
  #queueLogs(noMore: boolean): Promise<boolean> {
    clearTimeout(this.#latencyTimer);
    this.#latencyTimer = undefined;
    const run = this.#logChain.then(async () => {
      if (!noMore) this.#waitingFlush = undefined;
      if (this.#rows.length === 0 && !noMore) return true;
      const count = this.#rows.fitting(MAX_REQUEST_ROWS, MAX_REQUEST_BYTES);
      const request = create(UpdateLogRequestSchema, {
        taskId: this.#taskId,
        index: BigInt(this.#acked),
        // Only the request that carries the last row may say there will be no more.
        noMore: noMore && count === this.#rows.length,
      });
      request.$unknown = this.#rows.take(count);
      this.#sentEnd = this.#acked + count;
      try {
        const answer = await this.#client.updateLog(request);
        const ack = Number(answer.ackIndex);
        if (ack < this.#acked) {
          this.#log(
            `task ${this.#taskId}: submitted logs are lost (server acknowledged ${ack} of ${this.#acked})`,
          );
          return false;
        }
        this.#rows.drop(ack - this.#acked);
        this.#acked = ack;
        return true;
      } catch (error) {
        this.#log(`task ${this.#taskId}: log upload failed: ${errorMessage(error)}`);
        return false;
      }
    });
    this.#logChain = run.then(() => undefined);
    return run;
  }

  #reportState(): Promise<boolean> {
    return this.#queueState({ result: Result.UNSPECIFIED });
  }

  /** Sends the task and step state with the outputs not yet acknowledged; one at a time. */
  #queueState(final: { result: Result; stoppedAt?: Timestamp }): Promise<boolean> {
    this.#statePending++;
    const run = this.#stateChain.then(async () => {
      this.#lastStateAt = Date.now();
      try {
        const answer = await this.#client.updateTask({
          state: {
            id: this.#taskId,
            result: final.result,
            startedAt: this.#startedAt,
            ...(final.stoppedAt ? { stoppedAt: final.stoppedAt } : {}),
            steps: this.#steps.map((step, index) => ({ id: BigInt(index), ...step })),
          },
          outputs: Object.fromEntries(this.#outputs),
        });
        for (const key of answer.sentOutputs) this.#outputs.delete(key);
        const result = answer.state?.result ?? Result.UNSPECIFIED;
        if (
          final.result === Result.UNSPECIFIED &&
          result !== Result.UNSPECIFIED &&
          !this.#cancelled
        ) {
          this.#cancelled = true;
          this.#log(`task ${this.#taskId}: the server asks to stop it`);
          this.#onCancel();
        }
        return true;
      } catch (error) {
        this.#log(`task ${this.#taskId}: state report failed: ${errorMessage(error)}`);
        return false;
      }
    });
    this.#stateChain = run.then(() => {
      this.#statePending--;
    });
    return run;
  }
}
