/**
 * Composite actions (`runs.using: composite`): their `run:` and `uses:` steps in turn, with the
 * action's inputs as `inputs`, their own `steps` context, and the action's `outputs` evaluated at
 * the end.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { inputValues, type Loose, object } from './action-manifest.ts';
import type { ResolvedAction } from './actions.ts';
import { handOver } from './confinement.ts';
import { type Contexts, condition, interpolate, type JobStatus } from './expressions.ts';
import {
  combine,
  type Effects,
  effectsOf,
  FailureWithEffects,
  NO_EFFECTS,
} from './job-progress.ts';
import type { JobView } from './job-view.ts';
import { shellCommand } from './shell.ts';
import type { StepRun } from './step.ts';
import { execute, type StepExecution } from './step-exec.ts';
import type { StepSpec } from './workflow.ts';
import { scalarText } from './workflow.ts';

/** GitHub's limit on composite actions inside composite actions. */
const MAX_DEPTH = 9;

type StepResults = Record<
  string,
  { outputs: Record<string, string>; outcome: string; conclusion: string }
>;

/** Runs an action a composite action names in `uses:`, with the composite's contexts. */
async function runNestedAction(
  run: StepRun,
  view: JobView,
  step: Loose,
  env: Record<string, string>,
  contexts: Contexts,
  runAction: (run: StepRun) => Promise<StepExecution>,
): Promise<StepExecution> {
  const uses = String(step.uses);
  const depth = (run.depth ?? 0) + 1;
  if (depth > MAX_DEPTH)
    throw new Error(`"uses: ${uses}": composite actions nest deeper than ${MAX_DEPTH} levels`);
  const given = Object.entries(object(step.with)).map(([k, v]) => [k, scalarText(v)]);
  const spec: StepSpec = {
    uses,
    with: Object.fromEntries(given),
    env: {},
    continueOnError: false,
  };
  return runAction({ view, index: -1, spec, env, signal: run.signal, contexts, depth });
}

/** Runs a `run:` step of a composite action. */
async function runScriptStep(
  run: StepRun,
  view: JobView,
  step: Loose,
  env: Record<string, string>,
  contexts: Contexts,
  status: JobStatus,
): Promise<StepExecution> {
  const shell = typeof step.shell === 'string' ? step.shell : 'bash';
  const file = join(view.dirs.temp, `${randomUUID()}.sh`);
  await writeFile(file, interpolate(String(step.run), contexts, status), {
    mode: 0o700,
    flag: 'wx',
  });
  await handOver(view.host.confinement, file);
  const command = shellCommand(shell, file, view.path());
  const cwd =
    typeof step['working-directory'] === 'string'
      ? resolve(view.dirs.workspace, step['working-directory'])
      : view.dirs.workspace;
  return execute(view, {
    program: command.program,
    args: command.args,
    cwd,
    env,
    signal: run.signal,
  });
}

/**
 * Runs a composite action's steps for the step `run`: `run:` steps, and `uses:` steps through
 * `runAction` (their `post` runs at the end of the job; a `pre` does not run, as on GitHub). Each
 * step sees what the earlier ones wrote to GITHUB_ENV and GITHUB_PATH; all of it is answered.
 */
export async function runComposite(
  run: StepRun,
  action: ResolvedAction,
  runs: Loose,
  runAction: (run: StepRun) => Promise<StepExecution>,
): Promise<StepExecution> {
  const outer = run.view;
  const values = inputValues(
    action.manifest,
    run.spec.with,
    outer.contexts(outer.env(run.env), run.contexts ?? {}),
    outer.status,
  );
  const steps: StepResults = {};
  let ok = true;
  let effects: Effects = NO_EFFECTS;
  let view = outer;
  try {
    for (const [index, raw] of (Array.isArray(runs.steps) ? runs.steps : []).entries()) {
      const step = object(raw);
      const env: Record<string, string> = { ...run.env };
      const here = view;
      const contexts = () => here.contexts(here.env(env), { inputs: values, steps });
      const status = ok ? here.status : 'failure';
      if (!condition(step.if as string | boolean | undefined, contexts(), status)) continue;
      for (const [key, value] of Object.entries(object(step.env)))
        env[key] = interpolate(String(value), contexts(), status);
      let result: StepExecution;
      if (typeof step.uses === 'string') {
        const around = { inputs: values, steps };
        result = await runNestedAction(run, here, step, env, around, runAction);
      } else if (typeof step.run === 'string') {
        result = await runScriptStep(run, here, step, env, contexts(), status);
      } else {
        throw new Error(
          `composite step ${index + 1} of ${run.spec.uses} has neither run: nor uses:`,
        );
      }
      effects = combine(effects, result);
      view = outer.after(effects);
      const outcome = result.ok ? 'success' : 'failure';
      if (typeof step.id === 'string')
        steps[step.id] = { outputs: result.outputs, outcome, conclusion: outcome };
      if (!result.ok) ok = false;
    }
  } catch (error) {
    throw new FailureWithEffects((error as Error).message, combine(effects, effectsOf(error)));
  }
  const outputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(object(action.manifest.outputs))) {
    outputs[name] = interpolate(
      String(object(spec).value ?? ''),
      view.contexts(view.env(run.env), { inputs: values, steps }),
      view.status,
    );
  }
  return {
    exitCode: ok ? 0 : 1,
    timedOut: false,
    cancelled: run.signal.aborted,
    ...effects,
    ok,
    outputs,
    state: {},
  };
}
