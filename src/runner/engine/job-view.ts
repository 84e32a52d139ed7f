/**
 * What a part of a running job sees: what stays fixed for the whole job (the task, the host, the
 * directories, where the log goes, the values to mask), the job's progress so far, and which
 * step or action is running. A view is never changed; a part of the job that runs another
 * (a composite action its steps) hands it a new view with what the earlier ones produced.
 */
import { type ActionIdentity, actionNames, identityContext, NO_ACTION } from './action-identity.ts';
import {
  actionsUrl,
  baseEnv,
  githubContext,
  needsContext,
  runnerContext,
  type TaskDirs,
} from './contexts.ts';
import { type Contexts, ExpressionFailure, interpolate, type JobStatus } from './expressions.ts';
import { advance, type Effects, type JobProgress, type StepRecord } from './job-progress.ts';
import { Masker } from './masker.ts';
import type { HostInput, JobSink, TaskInput } from './task-input.ts';
import type { JobSpec } from './workflow.ts';

/** What does not change while a job runs. */
export type JobSetting = {
  readonly task: TaskInput;
  readonly host: HostInput;
  readonly job: JobSpec;
  readonly dirs: TaskDirs;
  readonly sink: JobSink;
  /**
   * The values to hide. Shared and growing rather than produced: `::add-mask::` must hide a
   * value from the very next line a step prints, before the step has produced anything.
   */
  readonly masker: Masker;
  readonly base: Record<string, string>;
  readonly debug: boolean;
  readonly actionsUrl: string;
  /** `GITHUB_ACTION` of each step. */
  readonly actionNames: readonly string[];
};

/** The setting of a job about to run. */
export function jobSetting(
  task: TaskInput,
  host: HostInput,
  job: JobSpec,
  dirs: TaskDirs,
  sink: JobSink,
): JobSetting {
  const masker = new Masker();
  for (const value of Object.values(task.secrets)) masker.add(value);
  if (typeof task.context.token === 'string') masker.add(task.context.token);
  return {
    task,
    host,
    job,
    dirs,
    sink,
    masker,
    base: baseEnv(task, host, dirs),
    debug: task.secrets.ACTIONS_STEP_DEBUG === 'true' || task.vars.ACTIONS_STEP_DEBUG === 'true',
    actionsUrl: actionsUrl(task, host),
    actionNames: actionNames(job.steps),
  };
}

/** The job as one of its parts sees it. */
export class JobView {
  readonly setting: JobSetting;
  readonly progress: JobProgress;
  /** The step and action running now (`GITHUB_ACTION*`, `github.action*`). */
  readonly action: ActionIdentity;

  constructor(setting: JobSetting, progress: JobProgress, action: ActionIdentity = NO_ACTION) {
    this.setting = setting;
    this.progress = progress;
    this.action = action;
  }

  get task(): TaskInput {
    return this.setting.task;
  }
  get host(): HostInput {
    return this.setting.host;
  }
  get job(): JobSpec {
    return this.setting.job;
  }
  get dirs(): TaskDirs {
    return this.setting.dirs;
  }
  get sink(): JobSink {
    return this.setting.sink;
  }
  get masker(): Masker {
    return this.setting.masker;
  }
  get base(): Record<string, string> {
    return this.setting.base;
  }
  get status(): JobStatus {
    return this.progress.status;
  }
  get steps(): Readonly<Record<string, StepRecord>> {
    return this.progress.steps;
  }

  /** The same job with `action` running. */
  running(action: ActionIdentity): JobView {
    return new JobView(this.setting, this.progress, action);
  }

  /** The same job after effects produced within the current step (a composite's steps). */
  after(effects: Effects): JobView {
    const progress = advance(this.progress, { env: effects.env, path: effects.path });
    return new JobView(this.setting, progress, this.action);
  }

  /** Logs a line after masking it. */
  log(line: string): void {
    this.sink.line(this.masker.mask(line));
  }

  /** Logs a piece of output, masking its lines only when a value to hide occurs in it. */
  logLines(lines: readonly string[]): void {
    const masking = this.masker.occursIn(lines);
    for (const line of lines) this.sink.line(masking ? this.masker.mask(line) : line);
  }

  /** The `env` context and the variables every step gets on top of the base environment. */
  env(stepEnv: Record<string, string> = {}): Record<string, string> {
    return { ...this.progress.jobEnv, ...this.progress.fileEnv, ...stepEnv };
  }

  /** The contexts an expression may use, with `env` as given. */
  contexts(env: Record<string, string> = this.env(), extra: Contexts = {}): Contexts {
    const { task, dirs, host, job } = this.setting;
    const github = { ...githubContext(task, dirs), ...identityContext(this.action) };
    return {
      github,
      gitea: github,
      env,
      vars: task.vars,
      secrets: task.secrets,
      needs: needsContext(task),
      steps: this.steps,
      matrix: job.matrix,
      strategy: {},
      inputs: inputsOf(task.context),
      job: { status: this.status, container: {}, services: {} },
      runner: { ...runnerContext(host, dirs), ...(this.setting.debug ? { debug: '1' } : {}) },
      ...extra,
    };
  }

  /** A `continue-on-error`-like flag, which may be an expression. */
  flag(value: string | boolean): boolean {
    if (typeof value === 'boolean') return value;
    return interpolate(value, this.contexts(), this.status).trim() === 'true';
  }

  /** PATH for a step: added directories first, then the host's. */
  path(): string {
    return [...this.progress.paths, this.base.PATH ?? ''].filter((p) => p !== '').join(':');
  }
}

function inputsOf(context: Record<string, unknown>): unknown {
  const event = context.event;
  if (event !== null && typeof event === 'object' && 'inputs' in event) return event.inputs ?? {};
  return {};
}

/** Minutes from a `timeout-minutes` value (a number or an expression), or undefined when unset. */
export function timeoutMs(value: string | number | undefined, view: JobView): number | undefined {
  if (value === undefined) return undefined;
  const text =
    typeof value === 'number' ? String(value) : interpolate(value, view.contexts(), view.status);
  const minutes = Number(text);
  if (!Number.isFinite(minutes) || minutes <= 0)
    throw new ExpressionFailure(`invalid timeout-minutes "${text}"`);
  return Math.round(minutes * 60_000);
}
