/**
 * Composite actions (`runs.using: composite`): their `run:` steps in turn, with the action's
 * inputs as `inputs`, their own `steps` context, and the action's `outputs` evaluated at the end.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { inputValues, type Loose, object } from './action-manifest.ts';
import type { ResolvedAction } from './actions.ts';
import { handOver } from './confinement.ts';
import { condition, interpolate } from './expressions.ts';
import { shellCommand } from './shell.ts';
import type { StepRun } from './step.ts';
import { execute, type StepExecution } from './step-exec.ts';

/** Runs a composite action's steps for the step `run`. */
export async function runComposite(
  run: StepRun,
  action: ResolvedAction,
  runs: Loose,
): Promise<StepExecution> {
  const { job } = run;
  const values = inputValues(
    action.manifest,
    run.spec.with,
    job.contexts(job.env(run.env)),
    job.status,
  );
  const steps: Record<
    string,
    { outputs: Record<string, string>; outcome: string; conclusion: string }
  > = {};
  let ok = true;
  for (const [index, raw] of (Array.isArray(runs.steps) ? runs.steps : []).entries()) {
    const step = object(raw);
    const env: Record<string, string> = { ...run.env };
    const contexts = () => job.contexts(job.env(env), { inputs: values, steps });
    const status = ok ? job.status : 'failure';
    if (!condition(step.if as string | boolean | undefined, contexts(), status)) continue;
    for (const [key, value] of Object.entries(object(step.env)))
      env[key] = interpolate(String(value), contexts(), status);
    if (typeof step.run !== 'string')
      throw new Error(
        `composite step ${index + 1} of ${run.spec.uses}: only run: steps are supported`,
      );
    const shell = typeof step.shell === 'string' ? step.shell : 'bash';
    const file = join(job.dirs.temp, `${randomUUID()}.sh`);
    await writeFile(file, interpolate(step.run, contexts(), status), { mode: 0o700, flag: 'wx' });
    await handOver(job.host.confinement, file);
    const command = shellCommand(shell, file, job.path());
    const cwd =
      typeof step['working-directory'] === 'string'
        ? resolve(job.dirs.workspace, step['working-directory'])
        : job.dirs.workspace;
    const result = await execute(job, {
      program: command.program,
      args: command.args,
      cwd,
      env,
      signal: run.signal,
    });
    const outcome = result.ok ? 'success' : 'failure';
    if (typeof step.id === 'string')
      steps[step.id] = { outputs: result.outputs, outcome, conclusion: outcome };
    if (!result.ok) ok = false;
  }
  const outputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(object(action.manifest.outputs))) {
    outputs[name] = interpolate(
      String(object(spec).value ?? ''),
      job.contexts(job.env(run.env), { inputs: values, steps }),
      job.status,
    );
  }
  return {
    exitCode: ok ? 0 : 1,
    timedOut: false,
    cancelled: run.signal.aborted,
    ok,
    outputs,
    state: {},
  };
}
