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
import { type Effects, effectsOf, NO_EFFECTS, type Produced } from './job-progress.ts';
import { type JobView, timeoutMs } from './job-view.ts';
import { scriptExtension, shellCommand, which } from './shell.ts';
import { execute, type StepExecution } from './step-exec.ts';
import type { Conclusion } from './task-input.ts';
import type { StepSpec } from './workflow.ts';

/** Arguments shared by the ways a step runs. */
export type StepRun = {
  /** The job as the step sees it, with the step's or its action's identity. */
  readonly view: JobView;
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
  const { view, spec } = run;
  const dir = spec.workingDirectory ?? view.job.defaults.workingDirectory ?? '.';
  const text = interpolate(dir, view.contexts(view.env(run.env)), view.status);
  return isAbsolute(text) ? text : resolve(view.dirs.workspace, text);
}

async function runScript(run: StepRun): Promise<StepExecution> {
  const { view, spec } = run;
  const path = view.path();
  const shell = spec.shell ?? view.job.defaults.shell ?? (which('bash', path) ? 'bash' : 'sh');
  const script = interpolate(spec.run ?? '', view.contexts(view.env(run.env)), view.status);
  const file = join(view.dirs.temp, `${randomUUID()}${scriptExtension(shell)}`);
  await writeFile(file, script, { mode: 0o700, flag: 'wx' });
  await handOver(view.host.confinement, file);
  const command = shellCommand(shell, file, path);
  return execute(view, {
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

/** Runs step `index`, reports it to the job's sink, and answers what it produced. */
export async function runStep(
  view: JobView,
  index: number,
  spec: StepSpec,
  jobSignal: AbortSignal,
): Promise<Produced> {
  const id = spec.id ?? `__${index}`;
  let outcome: Conclusion = 'failure';
  let outputs: Record<string, string> = {};
  let effects: Effects = NO_EFFECTS;
  let started = false;
  const named = view.running({ ...NO_ACTION, name: view.setting.actionNames[index] ?? id });
  try {
    if (!condition(spec.if, named.contexts(), named.status)) {
      view.sink.stepFinished(index, 'skipped');
      return { step: { id, record: { outputs: {}, outcome: 'skipped', conclusion: 'skipped' } } };
    }
    view.sink.stepStarted(index);
    started = true;
    const env = evaluateEnv(named, spec.env);
    const stepTimeout = timeoutMs(spec.timeoutMinutes, named);
    // A step that runs after cancellation (always(), cancelled()) must not be stopped at once.
    const signal = jobSignal.aborted ? NEVER : jobSignal;
    const run: StepRun = {
      view: named,
      index,
      spec,
      env,
      signal,
      ...(stepTimeout ? { timeoutMs: stepTimeout } : {}),
    };
    const execution = spec.uses !== undefined ? await runAction(run) : await runScript(run);
    outputs = execution.outputs;
    effects = { env: execution.env, path: execution.path, posts: execution.posts };
    outcome = execution.ok ? 'success' : execution.cancelled ? 'cancelled' : 'failure';
  } catch (error) {
    if (!started) view.sink.stepStarted(index);
    view.log(`::error::${errorMessage(error)}`);
    outcome = 'failure';
    effects = effectsOf(error);
  }
  let conclusion = outcome;
  // `continue-on-error` sees what the step wrote to GITHUB_ENV.
  if (outcome === 'failure' && safeFlag(view.after(effects), spec.continueOnError))
    conclusion = 'success';
  view.sink.stepFinished(index, conclusion);
  return { ...effects, step: { id, record: { outputs, outcome, conclusion } }, conclusion };
}

function safeFlag(view: JobView, value: string | boolean): boolean {
  try {
    return view.flag(value);
  } catch {
    return false;
  }
}
