/**
 * What the engine needs from a task and from the host, independent of the wire types, and the
 * callbacks through which it reports progress.
 */

/** Final state of a step or job, as GitHub names it. */
export type Conclusion = 'success' | 'failure' | 'cancelled' | 'skipped';

/** A task as the engine sees it. */
export type TaskInput = {
  readonly id: string;
  readonly workflowPayload: string;
  /** The `github` context as the server sent it. */
  readonly context: Record<string, unknown>;
  readonly secrets: Record<string, string>;
  readonly vars: Record<string, string>;
  readonly needs: Record<string, { outputs: Record<string, string>; result: Conclusion | '' }>;
};

/** Where and as what the runner runs. */
export type HostInput = {
  /** A directory under which each task gets fresh workspace and temp directories. */
  readonly workRoot: string;
  readonly runnerName: string;
  /** Instance URL the runner registered with (default actions source, runtime URLs). */
  readonly instance: string;
  /** Environment the job starts from; only PATH and HOME (and a few locale keys) are kept. */
  readonly hostEnv: Record<string, string | undefined>;
  /** Between SIGTERM and SIGKILL when stopping a step. */
  readonly killGraceMs: number;
};

/** Receives what the job does; the reporter implements it. */
export interface JobSink {
  /** One log line, already masked. */
  line(content: string): void;
  stepStarted(index: number): void;
  stepFinished(index: number, conclusion: Conclusion): void;
}

/** The outcome of a job. */
export type JobResult = { readonly result: Conclusion; readonly outputs: Record<string, string> };
