import { type ExpressionContexts, interpolate, interpolateValue } from './workflow/interpolate.ts';
import { aggregateStatus, type JobStatus } from './workflow/job-status.ts';
import { type CallFrame, inputValue, readCallFrames } from './workflow/workflow-call.ts';

/** What a job it needs left behind: its outputs and result (a matrix or a call aggregated). */
export type NeededJob = {
  readonly outputs: Readonly<Record<string, string>>;
  readonly result: JobStatus;
};

/** One job of the run as the contexts of another see it. */
export type RunJobFacts = {
  readonly jobKey: string;
  readonly status: JobStatus;
  readonly outputs: Readonly<Record<string, string>>;
};

/** What a task's `needs`, `inputs` and `secrets` are, from where it sits in the run. */
export type CallScope = {
  readonly needs: Record<string, NeededJob>;
  /** The `inputs` of a job of a called workflow; undefined for the run's own jobs. */
  readonly inputs: Record<string, unknown> | undefined;
  readonly secrets: Record<string, string>;
};

/** The key prefix of the workflow a job key belongs to: `''`, or `call/` (with the slash). */
function prefixOf(jobKey: string): string {
  return jobKey.slice(0, jobKey.lastIndexOf('/') + 1);
}

/**
 * Resolves what a job sees of the workflow calls around it when it is handed out:
 * - `needs.<id>` by the ids of its own workflow; a called workflow stands as one job whose
 *   result is that of all its jobs and whose outputs are its `on.workflow_call.outputs`
 *   evaluated over `jobs.<id>` of the called workflow;
 * - `inputs` from each enclosing call's `with:` (evaluated with the calling job's `needs`),
 *   typed and defaulted as the called workflow declares them;
 * - `secrets` passed down each call: all of the caller's with `inherit`, else only those
 *   named — so a called workflow sees no secret its caller did not hand it.
 */
export function callScope(
  task: { readonly jobKey: string; readonly needs: readonly string[] },
  storedCalls: unknown,
  jobs: readonly RunJobFacts[],
  base: { readonly contexts: ExpressionContexts; readonly secrets: Record<string, string> },
): CallScope {
  const frames = readCallFrames(storedCalls);
  const facts = new RunFacts(frames, jobs);
  const prefix = prefixOf(task.jobKey);
  const own = new Set<string>();
  for (const key of task.needs) {
    if (!key.startsWith(prefix)) continue;
    const id = key.slice(prefix.length).split('/')[0];
    if (id !== undefined && id !== '') own.add(id);
  }
  const needs = facts.needsOf(prefix, [...own]);
  let inputs: Record<string, unknown> | undefined;
  let secrets = base.secrets;
  const parts = task.jobKey.split('/');
  for (let depth = 1; depth < parts.length; depth++) {
    const key = parts.slice(0, depth).join('/');
    const frame = frames[key];
    if (frame === undefined) return { needs, inputs: {}, secrets: {} };
    const scope = {
      ...base.contexts,
      inputs: inputs ?? base.contexts.inputs ?? {},
      needs: facts.needsOf(prefixOf(key), frame.needs),
    };
    inputs = callInputs(frame, scope);
    secrets = passedSecrets(frame, secrets, scope);
  }
  return { needs, inputs, secrets };
}

function callInputs(frame: CallFrame, scope: ExpressionContexts): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const [name, input] of Object.entries(frame.inputs)) {
    const value = inputValue(
      input,
      safely(() => interpolateValue(frame.with[name], scope)),
    );
    if (value !== undefined) inputs[name] = value;
  }
  return inputs;
}

function passedSecrets(
  frame: CallFrame,
  secrets: Record<string, string>,
  scope: ExpressionContexts,
): Record<string, string> {
  if (frame.secrets === 'inherit') return secrets;
  const passed: Record<string, string> = {};
  for (const [name, expression] of Object.entries(frame.secrets)) {
    const value = safely(() => interpolate(expression, { ...scope, secrets })) ?? '';
    if (value !== '') passed[name] = value;
  }
  return passed;
}

/**
 * What `evaluate` answers, or undefined when it throws: what a job left behind is evaluated here
 * when another is handed out (`fromJSON` of an output that is not JSON), and a failure must not
 * keep the job from ever reaching a runner — the value is empty, as an unset one would be.
 */
function safely<T>(evaluate: () => T): T | undefined {
  try {
    return evaluate();
  } catch {
    return undefined;
  }
}

/** The run's jobs and calls, answering what a job or a call left behind. */
class RunFacts {
  readonly #frames: Readonly<Record<string, CallFrame>>;
  readonly #jobs: readonly RunJobFacts[];

  constructor(frames: Readonly<Record<string, CallFrame>>, jobs: readonly RunJobFacts[]) {
    this.#frames = frames;
    this.#jobs = jobs;
  }

  needsOf(prefix: string, ids: readonly string[]): Record<string, NeededJob> {
    return Object.fromEntries(ids.map((id) => [id, this.#of(`${prefix}${id}`)]));
  }

  #of(key: string): NeededJob {
    const frame = this.#frames[key];
    if (frame === undefined) {
      const matrix = this.#jobs.filter((job) => job.jobKey === key);
      const merged: Record<string, string> = {};
      for (const job of matrix) {
        // Across a matrix the non-empty value wins.
        for (const [name, value] of Object.entries(job.outputs)) {
          if ((merged[name] ?? '') === '') merged[name] = value;
        }
      }
      return { outputs: merged, result: aggregateStatus(matrix.map((job) => job.status)) };
    }
    const inside = `${key}/`;
    const members = this.#jobs.filter((job) => job.jobKey.startsWith(inside));
    const children = new Set(members.map((job) => job.jobKey.slice(inside.length).split('/')[0]));
    const jobsContext = this.needsOf(
      inside,
      [...children].filter((id): id is string => id !== undefined),
    );
    const outputs: Record<string, string> = {};
    for (const [name, expression] of Object.entries(frame.outputs)) {
      outputs[name] = safely(() => interpolate(expression, { jobs: jobsContext })) ?? '';
    }
    return { outputs, result: aggregateStatus(members.map((job) => job.status)) };
  }
}
