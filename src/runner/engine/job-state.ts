/**
 * What a running job knows between steps: its status, the environment steps added, the outputs
 * of earlier steps, the values to mask, and the post steps still to run.
 */

import { errorMessage } from '../thrown.ts';
import { type ActionIdentity, actionNames, identityContext, NO_ACTION } from './action-identity.ts';
import type { ResolvedAction } from './actions.ts';
import {
  actionsUrl,
  baseEnv,
  githubContext,
  needsContext,
  runnerContext,
  type TaskDirs,
} from './contexts.ts';
import { type Contexts, ExpressionFailure, interpolate, type JobStatus } from './expressions.ts';
import { Masker } from './masker.ts';
import type { Conclusion, HostInput, JobSink, TaskInput } from './task-input.ts';
import type { JobSpec } from './workflow.ts';

/** What `steps.<id>` shows later steps. */
export type StepRecord = {
  outputs: Record<string, string>;
  outcome: Conclusion;
  conclusion: Conclusion;
};

/** The mutable state of one job run. */
export class JobState {
  status: JobStatus = 'success';
  readonly masker = new Masker();
  /** Variables steps set through GITHUB_ENV. */
  readonly fileEnv: Record<string, string> = {};
  /** Directories steps added through GITHUB_PATH, newest first. */
  readonly paths: string[] = [];
  readonly steps: Record<string, StepRecord> = {};
  /** Post steps of actions, run in reverse order once the main steps are done. */
  readonly posts: Array<() => Promise<void>> = [];
  /** The step and action running now (`GITHUB_ACTION*`, `github.action*`). */
  action: ActionIdentity = NO_ACTION;
  /** `GITHUB_ACTION` of each step. */
  readonly actionNames: readonly string[];
  /** Actions fetched and read before the first step (for their `pre`), by step index. */
  readonly resolved = new Map<number, Promise<ResolvedAction>>();
  /** State an action's `pre` saved for its `main`, by step index. */
  readonly actionState = new Map<number, Record<string, string>>();
  /** Workflow and job `env:` once evaluated. */
  jobEnv: Record<string, string> = {};
  readonly base: Record<string, string>;
  readonly debug: boolean;
  readonly actionsUrl: string;

  readonly task: TaskInput;
  readonly host: HostInput;
  readonly job: JobSpec;
  readonly dirs: TaskDirs;
  readonly sink: JobSink;

  constructor(task: TaskInput, host: HostInput, job: JobSpec, dirs: TaskDirs, sink: JobSink) {
    this.task = task;
    this.host = host;
    this.job = job;
    this.dirs = dirs;
    this.sink = sink;
    for (const value of Object.values(task.secrets)) this.masker.add(value);
    if (typeof task.context.token === 'string') this.masker.add(task.context.token);
    this.base = baseEnv(task, host, dirs);
    this.debug =
      task.secrets.ACTIONS_STEP_DEBUG === 'true' || task.vars.ACTIONS_STEP_DEBUG === 'true';
    this.actionsUrl = actionsUrl(task, host);
    this.actionNames = actionNames(job.steps);
  }

  /** Marks the job failed, unless it is already failed or cancelled. */
  fail(): void {
    if (this.status === 'success') this.status = 'failure';
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

  /** Evaluates the workflow and job `env:` (the job's may use the workflow's). */
  prepareEnv(): void {
    const evaluated: Record<string, string> = {};
    for (const level of [this.job.workflowEnv, this.job.env]) {
      const contexts = this.contexts(evaluated);
      for (const [key, value] of Object.entries(level)) {
        evaluated[key] = interpolate(value, contexts, this.status);
      }
    }
    this.jobEnv = evaluated;
  }

  /** The `env` context and the variables every step gets on top of the base environment. */
  env(stepEnv: Record<string, string> = {}): Record<string, string> {
    return { ...this.jobEnv, ...this.fileEnv, ...stepEnv };
  }

  /** The contexts an expression may use, with `env` as given. */
  contexts(env: Record<string, string> = this.env(), extra: Contexts = {}): Contexts {
    const github = { ...githubContext(this.task, this.dirs), ...identityContext(this.action) };
    return {
      github,
      gitea: github,
      env,
      vars: this.task.vars,
      secrets: this.task.secrets,
      needs: needsContext(this.task),
      steps: this.steps,
      matrix: this.job.matrix,
      strategy: {},
      inputs: inputsOf(this.task.context),
      job: { status: this.status, container: {}, services: {} },
      runner: { ...runnerContext(this.host, this.dirs), ...(this.debug ? { debug: '1' } : {}) },
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
    return [...this.paths, this.base.PATH ?? ''].filter((p) => p !== '').join(':');
  }

  async runPostSteps(): Promise<void> {
    for (const post of this.posts.reverse()) await post();
  }

  /** `jobs.<id>.outputs`, evaluated now; values that would reveal a secret are left out. */
  jobOutputs(): Record<string, string> {
    const outputs: Record<string, string> = {};
    for (const [key, expression] of Object.entries(this.job.outputs)) {
      try {
        const value = interpolate(expression, this.contexts(), this.status);
        if (this.masker.mask(value) !== value) {
          this.log(`::warning::output "${key}" is left out because it contains a secret`);
        } else {
          outputs[key] = value;
        }
      } catch (error) {
        this.log(`::warning::output "${key}": ${errorMessage(error)}`);
      }
    }
    return outputs;
  }
}

function inputsOf(context: Record<string, unknown>): unknown {
  const event = context.event;
  if (event !== null && typeof event === 'object' && 'inputs' in event) return event.inputs ?? {};
  return {};
}

/** Minutes from a `timeout-minutes` value (a number or an expression), or undefined when unset. */
export function timeoutMs(value: string | number | undefined, state: JobState): number | undefined {
  if (value === undefined) return undefined;
  const text =
    typeof value === 'number' ? String(value) : interpolate(value, state.contexts(), state.status);
  const minutes = Number(text);
  if (!Number.isFinite(minutes) || minutes <= 0)
    throw new ExpressionFailure(`invalid timeout-minutes "${text}"`);
  return Math.round(minutes * 60_000);
}
