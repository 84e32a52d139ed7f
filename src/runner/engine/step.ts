/**
 * One entry of `steps:` from start to end: its `if:`, its `env:` and timeout, running it as a
 * script or an action, and recording outcome and conclusion (which differ under
 * `continue-on-error`) for later steps and for the report.
 */

import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { errorMessage } from '../thrown.ts';
import { NO_ACTION } from './action-identity.ts';
import { evaluateEnv } from './action-manifest.ts';
import { runAction } from './actions.ts';
import { handOver } from './confinement.ts';
import { type Contexts, condition, interpolate } from './expressions.ts';
import { type JobState, timeoutMs } from './job-state.ts';
import { scriptExtension, shellCommand, which } from './shell.ts';
import { execute, type StepExecution } from './step-exec.ts';
import type { Conclusion } from './task-input.ts';
import type { StepSpec } from './workflow.ts';

/** Arguments shared by the ways a step runs. */
export type StepRun = {
  readonly job: JobState;
  /** The step's place in `steps:`; -1 for a step of a composite action. */
  readonly index: number;
  readonly spec: StepSpec;
  readonly env: Record<string, string>;
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
  /** For a step of a composite action: that action's `inputs` and `steps` contexts. */
  readonly contexts?: Contexts;
  /** How many composite actions the step is inside. */
  readonly depth?: number;
};

/** The directory a step runs in: its own, the defaults', or the workspace. */
export function workingDirectory(run: StepRun): string {
  const { job, spec } = run;
  const dir = spec.workingDirectory ?? job.job.defaults.workingDirectory ?? '.';
  const text = interpolate(dir, job.contexts(job.env(run.env)), job.status);
  return isAbsolute(text) ? text : resolve(job.dirs.workspace, text);
}

async function runScript(run: StepRun): Promise<StepExecution> {
  const { job, spec } = run;
  const path = job.path();
  const shell = spec.shell ?? job.job.defaults.shell ?? (which('bash', path) ? 'bash' : 'sh');
  const script = interpolate(spec.run ?? '', job.contexts(job.env(run.env)), job.status);
  const file = join(job.dirs.temp, `${randomUUID()}${scriptExtension(shell)}`);
  await writeFile(file, script, { mode: 0o700, flag: 'wx' });
  await handOver(job.host.confinement, file);
  const command = shellCommand(shell, file, path);
  return execute(job, {
    program: command.program,
    args: command.args,
    cwd: workingDirectory(run),
    env: run.env,
    signal: run.signal,
    ...(run.timeoutMs !== undefined ? { timeoutMs: run.timeoutMs } : {}),
  });
}

/** A step that is not running anything: a signal that never aborts. */
const NEVER = new AbortController().signal;

/** Runs step `index` and reports it to the job's sink. */
export async function runStep(
  job: JobState,
  index: number,
  spec: StepSpec,
  jobSignal: AbortSignal,
): Promise<void> {
  const id = spec.id ?? `__${index}`;
  let outcome: Conclusion = 'failure';
  let outputs: Record<string, string> = {};
  let started = false;
  job.action = { ...NO_ACTION, name: job.actionNames[index] ?? id };
  try {
    if (!condition(spec.if, job.contexts(), job.status)) {
      job.steps[id] = { outputs: {}, outcome: 'skipped', conclusion: 'skipped' };
      job.sink.stepFinished(index, 'skipped');
      return;
    }
    job.sink.stepStarted(index);
    started = true;
    const env = evaluateEnv(job, spec.env);
    const stepTimeout = timeoutMs(spec.timeoutMinutes, job);
    // A step that runs after cancellation (always(), cancelled()) must not be stopped at once.
    const signal = jobSignal.aborted ? NEVER : jobSignal;
    const run: StepRun = {
      job,
      index,
      spec,
      env,
      signal,
      ...(stepTimeout ? { timeoutMs: stepTimeout } : {}),
    };
    const execution = spec.uses !== undefined ? await runAction(run) : await runScript(run);
    outputs = execution.outputs;
    outcome = execution.ok ? 'success' : execution.cancelled ? 'cancelled' : 'failure';
  } catch (error) {
    if (!started) job.sink.stepStarted(index);
    job.log(`::error::${errorMessage(error)}`);
    outcome = 'failure';
  } finally {
    job.action = NO_ACTION;
  }
  let conclusion = outcome;
  if (outcome === 'failure' && safeFlag(job, spec.continueOnError)) conclusion = 'success';
  job.steps[id] = { outputs, outcome, conclusion };
  if (conclusion === 'cancelled') job.status = 'cancelled';
  else if (conclusion === 'failure' && job.status === 'success') job.status = 'failure';
  job.sink.stepFinished(index, conclusion);
}

function safeFlag(job: JobState, value: string | boolean): boolean {
  try {
    return job.flag(value);
  } catch {
    return false;
  }
}
