/**
 * Runs one process on behalf of a step: fresh GITHUB_ENV/OUTPUT/PATH/STEP_SUMMARY/STATE files,
 * workflow commands read from its output, then what it wrote applied to the job.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { identityEnv } from './action-identity.ts';
import { confine, handOver } from './confinement.ts';
import { createStepFiles, EnvFileError, readStepFiles } from './env-files.ts';
import { type Effects, NO_EFFECTS } from './job-progress.ts';
import type { JobView } from './job-view.ts';
import { type ProcessEnd, runProcess } from './step-process.ts';
import { mayBeCommand, parseWorkflowCommand } from './workflow-commands.ts';

/** A process to run for a step. */
export type StepProcess = {
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Variables on top of the job's environment (step `env:`, `INPUT_*`, …). */
  readonly env: Record<string, string>;
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
  /** Saved state of the action's `pre`/`main`, given to later phases as `STATE_*`. */
  readonly state?: Record<string, string>;
};

/** How the process ended, and the outputs, state and effects it left. */
export type StepExecution = ProcessEnd &
  Effects & {
    readonly ok: boolean;
    readonly outputs: Record<string, string>;
    readonly state: Record<string, string>;
  };

/** Runs the process; logs its masked output; answers what it wrote to GITHUB_ENV and GITHUB_PATH. */
export async function execute(job: JobView, proc: StepProcess): Promise<StepExecution> {
  const files = await createStepFiles(job.dirs.fileCommands, randomUUID());
  const confinement = job.host.confinement;
  await handOver(confinement, ...Object.values(files));
  const outputs: Record<string, string> = {};
  const saved: Record<string, string> = {};
  let stopToken: string | undefined;
  /** Handles a line that may be a command; answers whether the line goes to the log. */
  const onCommand = (line: string): boolean => {
    const command = parseWorkflowCommand(line);
    if (stopToken !== undefined) {
      if (command?.name === stopToken.toLowerCase()) stopToken = undefined;
      return true;
    }
    switch (command?.name) {
      case 'add-mask':
        job.masker.add(command.message);
        break;
      case 'debug':
        return job.setting.debug;
      case 'set-output':
        if (command.properties.name) outputs[command.properties.name] = command.message;
        break;
      case 'save-state':
        if (command.properties.name) saved[command.properties.name] = command.message;
        break;
      case 'stop-commands':
        stopToken = command.message;
        break;
    }
    return true;
  };
  const onLines = (lines: readonly string[]) => {
    // Checked once for the piece, and again for the rest of it when `::add-mask::` adds a
    // value, which is hidden from the command's own line on.
    let masking = job.masker.occursIn(lines);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      if (mayBeCommand(line)) {
        const values = job.masker.size;
        if (!onCommand(line)) continue;
        if (job.masker.size !== values) masking = job.masker.occursIn(lines.slice(i));
      }
      job.sink.line(masking ? job.masker.mask(line) : line);
    }
  };
  const stateEnv = Object.fromEntries(
    Object.entries(proc.state ?? {}).map(([key, value]) => [`STATE_${key}`, value]),
  );
  const spawned = confine(
    confinement,
    {
      program: proc.program,
      args: proc.args,
      cwd: proc.cwd,
      env: {
        ...job.base,
        ...job.env(proc.env),
        ...identityEnv(job.action),
        ...(job.setting.debug ? { RUNNER_DEBUG: '1' } : {}),
        ...stateEnv,
        PATH: job.path(),
        GITHUB_ENV: files.env,
        GITHUB_OUTPUT: files.output,
        GITHUB_PATH: files.path,
        GITHUB_STEP_SUMMARY: files.summary,
        GITHUB_STATE: files.state,
      },
    },
    {
      root: job.dirs.root,
      workRoot: job.host.workRoot,
      toolCache: job.dirs.toolCache,
      actions: job.dirs.actions,
    },
  );
  const end = await runProcess({
    ...spawned,
    onLines,
    pipeDir: join(job.host.workRoot, 'pipes'),
    signal: proc.signal,
    ...(proc.timeoutMs !== undefined ? { timeoutMs: proc.timeoutMs } : {}),
    killGraceMs: job.host.killGraceMs,
  });
  let ok = end.exitCode === 0 && !end.timedOut && !end.cancelled;
  if (end.timedOut) job.log(`::error::the step has exceeded its timeout and was stopped`);
  else if (end.cancelled) job.log('::error::the step was cancelled');
  else if (!ok) job.log(`::error::process completed with exit code ${end.exitCode ?? 'unknown'}`);
  let effects = NO_EFFECTS;
  try {
    const written = await readStepFiles(files);
    effects = { env: written.env, path: written.path.reverse(), posts: [] };
    Object.assign(outputs, written.outputs);
    Object.assign(saved, written.state);
    if (written.summary.trim() !== '') {
      job.log('::group::Step summary');
      for (const line of written.summary.replace(/\n$/, '').split('\n')) job.log(line);
      job.log('::endgroup::');
    }
  } catch (error) {
    if (!(error instanceof EnvFileError)) throw error;
    job.log(`::error::${error.message}`);
    ok = false;
  }
  return { ...end, ...effects, ok, outputs, state: saved };
}
