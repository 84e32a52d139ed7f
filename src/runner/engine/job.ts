/**
 * Runs the one job of a task on this host: a fresh workspace, the job's `if:`, then each step in
 * order with GitHub's status rules (`success()` by default; `always()`, `failure()` and
 * `cancelled()` to run after a failure or cancellation), `continue-on-error`, and timeouts for
 * steps and for the job. Progress goes to a JobSink; the job's outputs are evaluated at the end.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../thrown.ts';
import { runPreStep } from './actions.ts';
import { handOver } from './confinement.ts';
import type { TaskDirs } from './contexts.ts';
import { condition, type JobStatus } from './expressions.ts';
import { advance, type Produced, startProgress } from './job-progress.ts';
import { evaluateJobEnv, jobOutputs } from './job-values.ts';
import { type JobSetting, JobView, jobSetting, timeoutMs } from './job-view.ts';
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
  try {
    return await runSteps(jobSetting(task, host, job, dirs, sink), signal);
  } finally {
    await rm(dirs.root, { recursive: true, force: true });
  }
}

/**
 * The job as a pipeline: each part (the job's `if:` and `env:`, the actions' `pre`, the steps,
 * the actions' `post`) gets a view of the job as it stands and returns what it produced, which
 * `advance` alone records.
 */
async function runSteps(setting: JobSetting, signal: AbortSignal): Promise<JobResult> {
  const { job, sink } = setting;
  let progress = startProgress(needsStatus(setting.task));
  const view = () => new JobView(setting, progress);
  const record = (produced: Produced) => {
    progress = advance(progress, produced);
  };
  view().log(
    `Kiln runner on ${setting.host.runnerName}: job "${job.name ?? job.id}", workspace ${setting.dirs.workspace}`,
  );
  let jobTimeout: number;
  try {
    const run = condition(job.if, view().contexts(), progress.status);
    if (!run) {
      view().log(`job skipped: if: ${String(job.if ?? 'success()')} is false`);
      for (const index of job.steps.keys()) sink.stepFinished(index, 'skipped');
      return { result: 'skipped', outputs: {} };
    }
    record({ status: 'success' });
    record({ jobEnv: evaluateJobEnv(view()) });
    jobTimeout = timeoutMs(job.timeoutMinutes, view()) ?? DEFAULT_JOB_MINUTES * 60_000;
  } catch (error) {
    view().log(`::error::${errorMessage(error)}`);
    return { result: 'failure', outputs: {} };
  }
  if (job.wantsContainers) {
    view().log(
      '::error::this runner runs jobs on its host and does not run containers: "container:" and "services:" need a runner with Docker',
    );
    for (const index of job.steps.keys()) sink.stepFinished(index, 'skipped');
    return { result: 'failure', outputs: {} };
  }
  const timedOut = AbortSignal.timeout(jobTimeout);
  const jobSignal = AbortSignal.any([signal, timedOut]);
  for (const [index, spec] of job.steps.entries()) {
    record(await runPreStep(view(), index, spec, jobSignal));
  }
  for (const [index, step] of job.steps.entries()) {
    if (jobSignal.aborted && progress.status !== 'cancelled') {
      record({ status: 'cancelled' });
      if (timedOut.aborted)
        view().log(`::error::the job has exceeded its ${jobTimeout / 60_000} minute timeout`);
    }
    record(await runStep(view(), index, step, jobSignal));
  }
  for (const post of [...progress.posts].reverse()) record(await post(view()));
  const end = view();
  const outputs = jobOutputs(end);
  const failed = end.status !== 'success' || timedOut.aborted;
  const result = timedOut.aborted ? 'failure' : end.status;
  if (failed && end.flag(job.continueOnError)) return { result: 'success', outputs };
  return { result, outputs };
}
