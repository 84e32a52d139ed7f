/**
 * `uses:` steps on the host, as GitHub's runner runs them. JavaScript actions (`runs.using`
 * `node12` to `node24`) run with this runner's own Node: `pre` at the start of the job (under
 * `pre-if`, default `always()`; not for an action in the workspace, which is not there yet),
 * `main` as the step, `post` at the end of the job in reverse order (under `post-if`, default
 * `always()`, so also after a failure), with the state one phase saves reaching the next as
 * `STATE_<name>`. Composite actions run their steps in turn. Remote actions are fetched with git
 * from the task's actions source (action-source.ts); `./path` names an action in the workspace.
 * Docker actions are refused with a clear message.
 */
import { resolve } from 'node:path';
import { errorMessage } from '../thrown.ts';
import { type ActionIdentity, generatedName, NO_ACTION } from './action-identity.ts';
import {
  evaluateEnv,
  inputEnv,
  inputValues,
  type Loose,
  object,
  readManifest,
} from './action-manifest.ts';
import { fetchRemote } from './action-source.ts';
import { runComposite } from './composite-action.ts';
import { type Contexts, condition } from './expressions.ts';
import type { JobState } from './job-state.ts';
import type { StepRun } from './step.ts';
import { execute, type StepExecution } from './step-exec.ts';
import type { StepSpec } from './workflow.ts';

const NODE_RUNTIMES = new Set(['node12', 'node16', 'node20', 'node22', 'node24']);

/** An action found and read: where it is, its `action.yml`, and what the step is told of it. */
export type ResolvedAction = {
  readonly dir: string;
  readonly manifest: Loose;
  readonly identity: ActionIdentity;
};

function refuseDocker(uses: string): never {
  throw new Error(
    `"uses: ${uses}" is a Docker action: this runner runs jobs on its host and does not run containers`,
  );
}

async function resolveAction(
  job: JobState,
  index: number,
  uses: string,
  signal: AbortSignal,
): Promise<ResolvedAction> {
  if (uses.startsWith('docker://')) refuseDocker(uses);
  // A step of a composite action is named as GitHub names steps without an id.
  const name = job.actionNames[index] ?? generatedName(uses);
  const fetched = uses.startsWith('./')
    ? { dir: resolve(job.dirs.workspace, uses), repository: '', ref: '' }
    : await fetchRemote(job, uses, signal);
  const manifest = await readManifest(job, fetched.dir);
  const { dir, repository, ref } = fetched;
  return { dir, manifest, identity: { name, path: dir, repository, ref } };
}

/** One phase (`pre`, `main`, `post`) of a JavaScript action as a process. */
function nodePhase(
  job: JobState,
  action: ResolvedAction,
  script: string,
  env: Record<string, string>,
  signal: AbortSignal,
  state: Record<string, string>,
  timeoutMs?: number,
): Promise<StepExecution> {
  return execute(job, {
    program: process.execPath,
    args: [resolve(action.dir, script)],
    cwd: job.dirs.workspace,
    env,
    signal,
    state,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
}

/** The environment of a phase: the step's `env:` and the action's inputs. */
function phaseEnv(
  job: JobState,
  spec: StepSpec,
  action: ResolvedAction,
  stepEnv: Record<string, string>,
  around: Contexts = {},
) {
  const contexts = job.contexts(job.env(stepEnv), around);
  const values = inputValues(action.manifest, spec.with, contexts, job.status);
  return { env: { ...stepEnv, ...inputEnv(values) }, values };
}

/**
 * A `pre` or `post` phase, which runs outside any step: under its condition (an expression or a
 * YAML boolean, `always()` when unset), with the action's identity, failing the job when it fails.
 */
async function outsideStep(
  job: JobState,
  action: ResolvedAction,
  when: unknown,
  contexts: () => Contexts,
  body: () => Promise<boolean>,
): Promise<void> {
  const test = typeof when === 'string' || typeof when === 'boolean' ? when : 'always()';
  job.action = action.identity;
  try {
    if (condition(test, contexts(), job.status) && !(await body())) job.fail();
  } catch (error) {
    job.log(`::error::${errorMessage(error)}`);
    job.fail();
  } finally {
    job.action = NO_ACTION;
  }
}

/**
 * Runs the `pre` of every remote JavaScript action of the job that has one, in step order, before
 * the first step. Fetching an action here also serves its step; an action that cannot be fetched
 * fails its own step later, as it would without a `pre`. A failed `pre` fails the job.
 */
export async function runPreSteps(job: JobState, signal: AbortSignal): Promise<void> {
  for (const [index, spec] of job.job.steps.entries()) {
    const uses = spec.uses;
    if (uses === undefined || uses.startsWith('./') || uses.startsWith('docker://')) continue;
    const resolving = resolveAction(job, index, uses, signal);
    job.resolved.set(index, resolving);
    let action: ResolvedAction;
    try {
      action = await resolving;
    } catch {
      continue;
    }
    const runs = object(action.manifest.runs);
    if (!NODE_RUNTIMES.has(String(runs.using)) || typeof runs.pre !== 'string') continue;
    const pre = runs.pre;
    await outsideStep(
      job,
      action,
      runs['pre-if'],
      () => job.contexts(),
      async () => {
        job.log(`pre: ${uses}`);
        const { env } = phaseEnv(job, spec, action, evaluateEnv(job, spec.env));
        const result = await nodePhase(job, action, pre, env, signal, {});
        job.actionState.set(index, result.state);
        return result.ok;
      },
    );
  }
}

async function runNode(run: StepRun, action: ResolvedAction, runs: Loose): Promise<StepExecution> {
  const { job, spec } = run;
  if (typeof runs.pre === 'string' && (spec.uses?.startsWith('./') || run.index < 0)) {
    job.log(
      `::warning::the pre step of ${spec.uses} is not run: an action in the workspace or inside a composite action has none`,
    );
  }
  const { env } = phaseEnv(job, spec, action, run.env, run.contexts);
  const before = job.actionState.get(run.index) ?? {};
  const main = await nodePhase(
    job,
    action,
    String(runs.main ?? ''),
    env,
    run.signal,
    before,
    run.timeoutMs,
  );
  const state = { ...before, ...main.state };
  if (typeof runs.post === 'string') {
    const script = runs.post;
    job.posts.push(() =>
      outsideStep(
        job,
        action,
        runs['post-if'],
        () => job.contexts(job.env(run.env)),
        async () => {
          job.log(`post: ${spec.uses}`);
          const never = new AbortController().signal;
          return (await nodePhase(job, action, script, env, never, state)).ok;
        },
      ),
    );
  }
  return main;
}

/** Runs the action a step names. */
export async function runAction(run: StepRun): Promise<StepExecution> {
  const { job } = run;
  const uses = run.spec.uses ?? '';
  const action = await (job.resolved.get(run.index) ??
    resolveAction(job, run.index, uses, run.signal));
  job.action = action.identity;
  const runs = object(action.manifest.runs);
  const using = String(runs.using ?? '').toLowerCase();
  if (NODE_RUNTIMES.has(using)) return runNode(run, action, runs);
  if (using === 'composite') return runComposite(run, action, runs, runAction);
  if (using === 'docker') refuseDocker(uses);
  throw new Error(`"uses: ${uses}": unknown runs.using "${using}"`);
}
