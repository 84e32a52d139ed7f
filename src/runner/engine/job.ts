/**
 * Runs the one job of a task on this host: a fresh workspace, the job's `if:`, then each step in
 * order with GitHub's status rules (`success()` by default; `always()`, `failure()` and
 * `cancelled()` to run after a failure or cancellation), `continue-on-error`, and timeouts for
 * steps and for the job. Progress goes to a JobSink; the job's outputs are evaluated at the end.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../thrown.ts';
import { runPreSteps } from './actions.ts';
import { handOver } from './confinement.ts';
import type { TaskDirs } from './contexts.ts';
import { condition, type JobStatus } from './expressions.ts';
import { JobState, timeoutMs } from './job-state.ts';
import { runStep } from './step.ts';
import type { HostInput, JobResult, JobSink, TaskInput } from './task-input.ts';
import { parseWorkflow, WorkflowError } from './workflow.ts';

/** GitHub's default job timeout: six hours. */
const DEFAULT_JOB_MINUTES = 360;

/**
 * A fresh directory for the task under the work root. A confined job gets its task directory,
 * workspace, temp, home and the tool cache as its own; the work root itself only to pass through
 * (0711: other tasks' directories cannot be listed), and the action cache to read.
 */
async function makeDirs(task: TaskInput, host: HostInput): Promise<TaskDirs> {
  await mkdir(host.workRoot, { recursive: true });
  if (host.confinement?.account) await chmod(host.workRoot, 0o711);
  const root = await mkdtemp(join(host.workRoot, `task-${task.id}-`));
  const dirs = {
    root,
    workspace: join(root, 'workspace'),
    home: join(root, 'home'),
    temp: join(root, 'temp'),
    toolCache: join(host.workRoot, 'tool-cache'),
    eventPath: join(root, 'temp', 'event.json'),
    fileCommands: join(root, 'temp', '_runner_file_commands'),
    actions: join(host.workRoot, 'actions'),
  };
  await Promise.all(
    [dirs.workspace, dirs.home, dirs.fileCommands, dirs.toolCache, dirs.actions].map((d) =>
      mkdir(d, { recursive: true, mode: 0o755 }),
    ),
  );
  await writeFile(dirs.eventPath, JSON.stringify(task.context.event ?? {}), { mode: 0o600 });
  const mine = [root, dirs.workspace, dirs.home, dirs.temp, dirs.eventPath, dirs.toolCache];
  await handOver(host.confinement, ...mine);
  return dirs;
}

/** The status the job's own `if:` sees: from the results of the jobs it needs. */
function needsStatus(task: TaskInput): JobStatus {
  const results = Object.values(task.needs).map((need) => need.result);
  if (results.includes('cancelled')) return 'cancelled';
  if (results.includes('failure')) return 'failure';
  return 'success';
}

/** Runs the task's job to its end; never throws for anything the workflow does. */
export async function runJob(
  task: TaskInput,
  host: HostInput,
  sink: JobSink,
  signal: AbortSignal,
): Promise<JobResult> {
  let job: ReturnType<typeof parseWorkflow>;
  try {
    job = parseWorkflow(task.workflowPayload);
  } catch (error) {
    if (!(error instanceof WorkflowError)) throw error;
    sink.line(`::error::${error.message}`);
    return { result: 'failure', outputs: {} };
  }
  const dirs = await makeDirs(task, host);
  const state = new JobState(task, host, job, dirs, sink);
  try {
    return await runSteps(state, signal);
  } finally {
    await rm(dirs.root, { recursive: true, force: true });
  }
}

async function runSteps(state: JobState, signal: AbortSignal): Promise<JobResult> {
  const { job } = state;
  state.log(
    `Kiln runner on ${state.host.runnerName}: job "${job.name ?? job.id}", workspace ${state.dirs.workspace}`,
  );
  let jobTimeout: number;
  try {
    state.status = needsStatus(state.task);
    const run = condition(job.if, state.contexts(), state.status);
    if (!run) {
      state.log(`job skipped: if: ${String(job.if ?? 'success()')} is false`);
      for (const index of job.steps.keys()) state.sink.stepFinished(index, 'skipped');
      return { result: 'skipped', outputs: {} };
    }
    state.status = 'success';
    state.prepareEnv();
    jobTimeout = timeoutMs(job.timeoutMinutes, state) ?? DEFAULT_JOB_MINUTES * 60_000;
  } catch (error) {
    state.log(`::error::${errorMessage(error)}`);
    return { result: 'failure', outputs: {} };
  }
  if (job.wantsContainers) {
    state.log(
      '::error::this runner runs jobs on its host and does not run containers: "container:" and "services:" need a runner with Docker',
    );
    for (const index of job.steps.keys()) state.sink.stepFinished(index, 'skipped');
    return { result: 'failure', outputs: {} };
  }
  const timedOut = AbortSignal.timeout(jobTimeout);
  const jobSignal = AbortSignal.any([signal, timedOut]);
  await runPreSteps(state, jobSignal);
  for (const [index, step] of job.steps.entries()) {
    if (jobSignal.aborted && state.status !== 'cancelled') {
      state.status = 'cancelled';
      if (timedOut.aborted)
        state.log(`::error::the job has exceeded its ${jobTimeout / 60_000} minute timeout`);
    }
    await runStep(state, index, step, jobSignal);
  }
  await state.runPostSteps();
  const outputs = state.jobOutputs();
  const failed = state.status !== 'success' || timedOut.aborted;
  const result = timedOut.aborted ? 'failure' : state.status;
  if (failed && state.flag(job.continueOnError)) return { result: 'success', outputs };
  return { result, outputs };
}
