import { errorMessage } from '../../../lib/thrown.ts';
import { type ExpressionContexts, interpolateValue } from './interpolate.ts';
import {
  encodePermissions,
  jobPermissions,
  type Permissions,
  readPermissions,
  WRITE_ALL,
} from './permissions.ts';
import {
  type CallFrame,
  type CallRef,
  callDeclarations,
  callFrame,
  callLabel,
  callRuns,
  inputValue,
  parseCallRef,
} from './workflow-call.ts';
import { WorkflowError } from './workflow-error.ts';
import {
  MAX_JOBS_PER_RUN,
  needsOf,
  type ParsedWorkflow,
  type PlannedJob,
} from './workflow-parse.ts';
import type { WorkflowParser } from './workflow-parser.ts';

/** Workflows a run may chain: the run's own and three levels of calls below it (GitHub's four). */
export const MAX_CALL_DEPTH = 4;

/** A called workflow file as read: its text and an identity that tells cycles apart. */
export type LoadedWorkflow = {
  readonly content: string;
  /** Names the file at one revision (`repo id:path@commit`); the same file gives the same one. */
  readonly identity: string;
  /** What the messages call it (`owner/repo/path@ref`, or the path). */
  readonly label: string;
  /** Where `./` calls made by this file resolve. */
  readonly origin: unknown;
};

/** Reads a called workflow for a call made from `origin`; throws `WorkflowError` when it cannot. */
export type WorkflowLoader = (ref: CallRef, origin: unknown) => Promise<LoadedWorkflow>;

/** What expanding a run reads with: the called files, and the parser that parses and plans them. */
type Reading = { readonly load: WorkflowLoader; readonly parser: WorkflowParser };

/** A job of the run: a planned job with its key in the run and its token's permissions. */
export type ExpandedJob = PlannedJob & {
  /** `build`, or `call/build` for a job of a called workflow (job ids hold no `/`). */
  readonly jobKey: string;
  /** The run-wide keys it waits for (a call stands for every job it expanded into). */
  readonly needs: readonly string[];
  /** Encoded (permissions.ts). */
  readonly permissions: string;
  /** In a call whose `if:` was false: made skipped, as GitHub shows it. */
  readonly skipped: boolean;
};

export type ExpandedRun = {
  readonly jobs: ExpandedJob[];
  /** By calling job key. */
  readonly calls: Record<string, CallFrame>;
};

type Level = {
  readonly workflow: ParsedWorkflow;
  readonly contexts: ExpressionContexts;
  readonly origin: unknown;
  /** Key prefix (`''` for the run's own workflow, else `call/`). */
  readonly prefix: string;
  /** Display prefix (`''`, else `Caller / `). */
  readonly names: string;
  readonly bound: Permissions;
  /** What the root jobs of this level wait for (the calling job's needs). */
  readonly rootNeeds: readonly string[];
  /** Identities of the workflows above, this one last. */
  readonly chain: readonly { identity: string; label: string }[];
  /** A calling job above had an `if:` that was false. */
  readonly skipped: boolean;
};

/**
 * Plans a run's jobs with the workflows its jobs call (`uses:` at job level) expanded into jobs
 * of the run when it is created, as the scheduler then sees them: a called workflow's jobs are
 * keyed `caller/job` and named `Caller / Job` (GitHub's and Gitea's display), its root jobs
 * wait for what the calling job needs, and a job that needs the caller waits for all of them.
 * Calls nest up to MAX_CALL_DEPTH workflows; a workflow that calls itself, directly or not, is
 * refused naming the chain. Each job's token permissions are its own (or its workflow's)
 * narrowed by those of the job that called its workflow, so a call never widens them.
 */
export async function expandRun(
  workflow: ParsedWorkflow,
  contexts: ExpressionContexts,
  reading: Reading,
  origin: { readonly value: unknown; readonly identity: string; readonly label: string },
): Promise<ExpandedRun> {
  const run: ExpandedRun = { jobs: [], calls: {} };
  await expandLevel(run, reading, {
    workflow,
    contexts,
    origin: origin.value,
    prefix: '',
    names: '',
    bound: WRITE_ALL,
    rootNeeds: [],
    chain: [{ identity: origin.identity, label: origin.label }],
    skipped: false,
  });
  return run;
}

/** Expands one workflow of the chain; answers, per job id of it, the run keys it stands for. */
async function expandLevel(run: ExpandedRun, reading: Reading, level: Level) {
  const { workflow, prefix } = level;
  // Run keys join job ids with `/`: an id holding one could pass for a called workflow's job.
  const slashed = Object.keys(workflow.jobs).find((id) => id.includes('/'));
  if (slashed !== undefined) throw new WorkflowError(`job id "${slashed}" may not contain "/"`);
  const own = readPermissions(workflow.permissions, workflow.name);
  const calling = Object.entries(workflow.jobs).filter(([, job]) => job.uses !== undefined);
  const leaves = new Map<string, readonly string[]>();
  const plain = Object.fromEntries(
    Object.entries(workflow.jobs).filter(([, job]) => job.uses === undefined),
  );
  for (const id of Object.keys(plain)) leaves.set(id, [`${prefix}${id}`]);
  // Calls in the order their needs allow, so a call that needs another knows its jobs.
  const pending = new Map(calling);
  while (pending.size > 0) {
    const ready = [...pending].find(([, job]) => needsOf(job).every((need) => leaves.has(need)));
    if (ready === undefined) {
      throw new WorkflowError(`jobs ${[...pending.keys()].join(', ')} need each other in a cycle`);
    }
    const [id, job] = ready;
    pending.delete(id);
    leaves.set(id, await expandCall(run, reading, level, id, job, own, leaves));
    checkSize(run);
  }
  const waitFor = (job: Record<string, unknown>) => {
    const needs = needsOf(job);
    return needs.length === 0 ? level.rootNeeds : needs.flatMap((need) => leaves.get(need) ?? []);
  };
  const planned =
    Object.keys(plain).length === 0
      ? []
      : await reading.parser.plan({ ...workflow, jobs: plain }, level.contexts);
  for (const job of planned) {
    const written = plain[job.jobId] as Record<string, unknown>;
    const permissions = jobPermissions(
      level.bound,
      own,
      readPermissions(written.permissions, `job "${job.jobId}"`),
    );
    run.jobs.push({
      ...job,
      jobKey: `${prefix}${job.jobId}`,
      name: `${level.names}${job.name}`,
      needs: waitFor(written),
      permissions: encodePermissions(permissions),
      skipped: level.skipped,
    });
  }
  checkSize(run);
}

/**
 * Refuses a run past MAX_JOBS_PER_RUN as soon as it gets there: every call expands into one job
 * at least, so wide and deep calls stop after a few hundred files read, never after all of them.
 */
function checkSize(run: ExpandedRun): void {
  if (run.jobs.length > MAX_JOBS_PER_RUN) {
    throw new WorkflowError(
      `the workflow makes more than the ${MAX_JOBS_PER_RUN} jobs a run may have`,
    );
  }
}

async function expandCall(
  run: ExpandedRun,
  reading: Reading,
  level: Level,
  id: string,
  job: Record<string, unknown>,
  own: Permissions | undefined,
  leaves: ReadonlyMap<string, readonly string[]>,
): Promise<string[]> {
  if (typeof job.uses !== 'string') throw new WorkflowError(`job "${id}": uses must be text`);
  const ref = parseCallRef(id, job.uses);
  if (level.chain.length >= MAX_CALL_DEPTH) {
    throw new WorkflowError(
      `job "${id}": workflow calls nest deeper than ${MAX_CALL_DEPTH} levels ` +
        `(${[...level.chain.map((c) => c.label), callLabel(ref)].join(' → ')})`,
    );
  }
  const loaded = await reading.load(ref, level.origin);
  if (level.chain.some((above) => above.identity === loaded.identity)) {
    throw new WorkflowError(
      `job "${id}": workflow call cycle: ${[...level.chain.map((c) => c.label), loaded.label].join(' → ')}`,
    );
  }
  let called: ParsedWorkflow;
  try {
    called = await reading.parser.parse(loaded.label, loaded.content);
  } catch (error) {
    throw new WorkflowError(`${loaded.label}: ${errorMessage(error)}`);
  }
  const needs = needsOf(job);
  const frame = callFrame(id, job, callDeclarations(loaded.label, called.triggers), needs);
  const key = `${level.prefix}${id}`;
  run.calls[key] = frame;
  // What `with:` says without the caller's `needs` (known only once they ran) is known now, for
  // what the called workflow evaluates when the run is made (`runs-on`, names, matrices).
  const known: Record<string, unknown> = {};
  for (const [name, input] of Object.entries(frame.inputs)) {
    const given = interpolateValue(frame.with[name], level.contexts);
    if (typeof given === 'string' && given.includes('${{')) continue;
    const value = inputValue(input, given);
    if (value !== undefined) known[name] = value;
  }
  const display =
    typeof job.name === 'string' ? String(interpolateValue(job.name, level.contexts)) : id;
  const before = run.jobs.length;
  await expandLevel(run, reading, {
    workflow: called,
    contexts: { ...level.contexts, inputs: known },
    origin: loaded.origin,
    prefix: `${key}/`,
    names: `${level.names}${display} / `,
    bound: jobPermissions(level.bound, own, readPermissions(job.permissions, `job "${id}"`)),
    rootNeeds:
      needs.length === 0 ? level.rootNeeds : needs.flatMap((need) => leaves.get(need) ?? []),
    chain: [...level.chain, { identity: loaded.identity, label: loaded.label }],
    skipped:
      level.skipped ||
      !callRuns(id, job.if, (expression) => interpolateValue(expression, level.contexts)),
  });
  return run.jobs.slice(before).map((expanded) => expanded.jobKey);
}
