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
import { type ActionIdentity, generatedName } from './action-identity.ts';
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
import type { PostStep, Produced } from './job-progress.ts';
import type { JobView } from './job-view.ts';
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
  view: JobView,
  index: number,
  uses: string,
  signal: AbortSignal,
): Promise<ResolvedAction> {
  if (uses.startsWith('docker://')) refuseDocker(uses);
  // A step of a composite action is named as GitHub names steps without an id.
  const name = view.setting.actionNames[index] ?? generatedName(uses);
  const fetched = uses.startsWith('./')
    ? { dir: resolve(view.dirs.workspace, uses), repository: '', ref: '' }
    : await fetchRemote(view, uses, signal);
  const manifest = await readManifest(view, fetched.dir);
  const { dir, repository, ref } = fetched;
  return { dir, manifest, identity: { name, path: dir, repository, ref } };
}

/** One phase (`pre`, `main`, `post`) of a JavaScript action as a process. */
function nodePhase(
  view: JobView,
  action: ResolvedAction,
  script: string,
  env: Record<string, string>,
  signal: AbortSignal,
  state: Record<string, string>,
  timeoutMs?: number,
): Promise<StepExecution> {
  return execute(view, {
    program: process.execPath,
    args: [resolve(action.dir, script)],
    cwd: view.dirs.workspace,
    env,
    signal,
    state,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
}

/** The environment of a phase: the step's `env:` and the action's inputs. */
function phaseEnv(
  view: JobView,
  spec: StepSpec,
  action: ResolvedAction,
  stepEnv: Record<string, string>,
  around: Contexts = {},
) {
  const contexts = view.contexts(view.env(stepEnv), around);
  const values = inputValues(action.manifest, spec.with, contexts, view.status);
  return { env: { ...stepEnv, ...inputEnv(values) }, values };
}

/**
 * A `pre` or `post` phase, which runs outside any step: under its condition (an expression or a
 * YAML boolean, `always()` when unset), with the action's identity and `env` as the step's
 * `env:`; a phase that fails fails the job.
 */
async function outsideStep(
  view: JobView,
  action: ResolvedAction,
  when: unknown,
  env: Record<string, string>,
  body: (running: JobView) => Promise<StepExecution>,
): Promise<{ produced: Produced; execution?: StepExecution }> {
  const test = typeof when === 'string' || typeof when === 'boolean' ? when : 'always()';
  const running = view.running(action.identity);
  try {
    if (!condition(test, running.contexts(running.env(env)), running.status))
      return { produced: {} };
    const execution = await body(running);
    const { ok, env: fileEnv, path } = execution;
    return {
      execution,
      produced: { env: fileEnv, path, ...(ok ? {} : { conclusion: 'failure' }) },
    };
  } catch (error) {
    running.log(`::error::${errorMessage(error)}`);
    return { produced: { conclusion: 'failure' } };
  }
}

/**
 * The `pre` of step `index` when it uses a remote JavaScript action that has one, before the
 * first step. Fetching an action here also serves its step; an action that cannot be fetched
 * fails its own step later, as it would without a `pre`. A failed `pre` fails the job.
 */
export async function runPreStep(
  view: JobView,
  index: number,
  spec: StepSpec,
  signal: AbortSignal,
): Promise<Produced> {
  const uses = spec.uses;
  if (uses === undefined || uses.startsWith('./') || uses.startsWith('docker://')) return {};
  const resolving = resolveAction(view, index, uses, signal);
  const prepared = (state?: Record<string, string>) => ({
    index,
    action: { action: resolving, ...(state ? { state } : {}) },
  });
  let action: ResolvedAction;
  try {
    action = await resolving;
  } catch {
    return { prepared: prepared() };
  }
  const runs = object(action.manifest.runs);
  if (!NODE_RUNTIMES.has(String(runs.using)) || typeof runs.pre !== 'string')
    return { prepared: prepared() };
  const pre = runs.pre;
  const { produced, execution } = await outsideStep(
    view,
    action,
    runs['pre-if'],
    {},
    async (running) => {
      running.log(`pre: ${uses}`);
      const { env } = phaseEnv(running, spec, action, evaluateEnv(running, spec.env));
      return nodePhase(running, action, pre, env, signal, {});
    },
  );
  return { ...produced, prepared: prepared(execution?.state) };
}

async function runNode(run: StepRun, action: ResolvedAction, runs: Loose): Promise<StepExecution> {
  const { view, spec } = run;
  if (typeof runs.pre === 'string' && (spec.uses?.startsWith('./') || run.index < 0)) {
    view.log(
      `::warning::the pre step of ${spec.uses} is not run: an action in the workspace or inside a composite action has none`,
    );
  }
  const { env } = phaseEnv(view, spec, action, run.env, run.contexts);
  const before = view.progress.prepared.get(run.index)?.state ?? {};
  const main = await nodePhase(
    view,
    action,
    String(runs.main ?? ''),
    env,
    run.signal,
    before,
    run.timeoutMs,
  );
  if (typeof runs.post !== 'string') return main;
  const script = runs.post;
  const state = { ...before, ...main.state };
  const post: PostStep = async (end) => {
    const { produced } = await outsideStep(end, action, runs['post-if'], run.env, (running) => {
      running.log(`post: ${spec.uses}`);
      const never = new AbortController().signal;
      return nodePhase(running, action, script, env, never, state);
    });
    return produced;
  };
  return { ...main, posts: [...main.posts, post] };
}

/** Runs the action a step names. */
export async function runAction(run: StepRun): Promise<StepExecution> {
  const uses = run.spec.uses ?? '';
  const prepared = run.view.progress.prepared.get(run.index);
  const action = await (prepared?.action ?? resolveAction(run.view, run.index, uses, run.signal));
  const running: StepRun = { ...run, view: run.view.running(action.identity) };
  const runs = object(action.manifest.runs);
  const using = String(runs.using ?? '').toLowerCase();
  if (NODE_RUNTIMES.has(using)) return runNode(running, action, runs);
  if (using === 'composite') return runComposite(running, action, runs, runAction);
  if (using === 'docker') refuseDocker(uses);
  throw new Error(`"uses: ${uses}": unknown runs.using "${using}"`);
}
