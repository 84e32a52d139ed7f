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
  /** How steps are kept from the runner's credentials; undefined: they run as the runner. */
  readonly confinement?: JobConfinement;
};

/** An unprivileged account steps run as. */
export type JobAccount = { readonly name: string; readonly uid: number; readonly gid: number };

/** How steps are confined (see confinement.ts); chosen once when the daemon starts. */
export type JobConfinement = {
  /** The account steps run as (the daemon runs as root); undefined: the daemon's own. */
  readonly account?: JobAccount;
  /** The `bwrap` program when each step runs in a sandbox; undefined: no sandbox. */
  readonly bwrap?: string;
  /** Directories a sandboxed step finds empty: the registration file's, the runner's home. */
  readonly hidden: readonly string[];
  /** Directories under hidden ones given back read-only: the runner's Node and host PATH. */
  readonly tools: readonly string[];
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
