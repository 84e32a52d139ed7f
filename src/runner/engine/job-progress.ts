/**
 * The record of a running job and the one function that moves it on. Every part of a job (its
 * `if:` and `env:`, each step, each action's `pre` and `post`) is handed a view of the job and
 * returns what it produced instead of writing into shared state; the job's loop (job.ts) gives
 * that to `advance`, so how a result changes the job's status, environment, PATH and `steps`
 * context is decided here alone.
 */
import type { ResolvedAction } from './actions.ts';
import type { JobStatus } from './expressions.ts';
import type { JobView } from './job-view.ts';
import type { Conclusion } from './task-input.ts';

/** What `steps.<id>` shows later steps. */
export type StepRecord = {
  readonly outputs: Record<string, string>;
  readonly outcome: Conclusion;
  readonly conclusion: Conclusion;
};

/** An action's `post`, run once the main steps are done, against the job as it is then. */
export type PostStep = (view: JobView) => Promise<Produced>;

/** What running a process or an action leaves for the rest of the job besides its result. */
export type Effects = {
  /** Variables written to GITHUB_ENV. */
  readonly env: Readonly<Record<string, string>>;
  /** Directories written to GITHUB_PATH, newest first. */
  readonly path: readonly string[];
  /** Post steps of the actions that ran, in the order they ran. */
  readonly posts: readonly PostStep[];
};

export const NO_EFFECTS: Effects = { env: {}, path: [], posts: [] };

/** The effects of `earlier` followed by those of `later`. */
export function combine(earlier: Effects, later: Effects): Effects {
  return {
    env: { ...earlier.env, ...later.env },
    path: [...later.path, ...earlier.path],
    posts: [...earlier.posts, ...later.posts],
  };
}

/** An action fetched before the first step (for its `pre`), and the state its `pre` saved. */
export type PreparedAction = {
  readonly action: Promise<ResolvedAction>;
  readonly state?: Record<string, string>;
};

/** What one part of the job produced. */
export type Produced = Partial<Effects> & {
  /** The workflow's and job's `env:`, evaluated. */
  readonly jobEnv?: Record<string, string>;
  /** The job's status set outright: from its needs, or cancelled. */
  readonly status?: JobStatus;
  /** How a step or phase ended: a failure fails a succeeding job, a cancellation cancels it. */
  readonly conclusion?: Conclusion;
  /** The step's entry in the `steps` context. */
  readonly step?: { readonly id: string; readonly record: StepRecord };
  /** An action prepared for step `index`. */
  readonly prepared?: { readonly index: number; readonly action: PreparedAction };
};

/** The state of a job between its parts. */
export type JobProgress = {
  readonly status: JobStatus;
  readonly jobEnv: Readonly<Record<string, string>>;
  /** Variables steps set through GITHUB_ENV. */
  readonly fileEnv: Readonly<Record<string, string>>;
  /** Directories steps added through GITHUB_PATH, newest first. */
  readonly paths: readonly string[];
  readonly steps: Readonly<Record<string, StepRecord>>;
  /** Post steps still to run, in the order their actions ran (they run in reverse). */
  readonly posts: readonly PostStep[];
  readonly prepared: ReadonlyMap<number, PreparedAction>;
};

/** A job that has run nothing yet. */
export function startProgress(status: JobStatus): JobProgress {
  return { status, jobEnv: {}, fileEnv: {}, paths: [], steps: {}, posts: [], prepared: new Map() };
}

function nextStatus(status: JobStatus, conclusion: Conclusion | undefined): JobStatus {
  if (conclusion === 'cancelled') return 'cancelled';
  if (conclusion === 'failure' && status === 'success') return 'failure';
  return status;
}

/** The job after `produced`. The only place a job's state changes. */
export function advance(progress: JobProgress, produced: Produced): JobProgress {
  const { env, path, posts, step, prepared } = produced;
  return {
    status: nextStatus(produced.status ?? progress.status, produced.conclusion),
    jobEnv: produced.jobEnv ?? progress.jobEnv,
    fileEnv: env ? { ...progress.fileEnv, ...env } : progress.fileEnv,
    paths: path?.length ? [...path, ...progress.paths] : progress.paths,
    steps: step ? { ...progress.steps, [step.id]: step.record } : progress.steps,
    posts: posts?.length ? [...progress.posts, ...posts] : progress.posts,
    prepared: prepared
      ? new Map(progress.prepared).set(prepared.index, prepared.action)
      : progress.prepared,
  };
}

/**
 * A failure of something that had already produced effects (the earlier steps of a composite
 * action), so that what they wrote is kept, as it would be had the failure come later.
 */
export class FailureWithEffects extends Error {
  readonly effects: Effects;
  constructor(message: string, effects: Effects) {
    super(message);
    this.effects = effects;
  }
}

/** The effects a thrown failure carries, if any. */
export function effectsOf(error: unknown): Effects {
  return error instanceof FailureWithEffects ? error.effects : NO_EFFECTS;
}
