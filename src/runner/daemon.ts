/**
 * `kiln runner daemon`: declares the runner's labels and version once, then polls FetchTask at
 * the Gitea runner's cadence (2 s, doubling on empty or failed polls up to 5 s, ±20 % jitter,
 * 5 s deadline, `tasks_version` kept as §3.4 of the protocol notes describes) and runs up to
 * `capacity` tasks at once. Stops polling on `unauthenticated` or when asked to stop, lets
 * running tasks finish within a grace period, then cancels what is left.
 */
import { chmod, unlink } from 'node:fs/promises';
import { Code, ConnectError } from '@connectrpc/connect';
import { killAccountProcesses } from './account-sweep.ts';
import { runnerClients } from './client.ts';
import type { HostInput, JobAccount } from './engine/task-input.ts';
import { forkPullRefusal, isForkPull } from './fork-pulls.ts';
import {
  chooseIsolation,
  type Isolation,
  IsolationError,
  type IsolationMode,
} from './isolation.ts';
import { labelNames } from './labels.ts';
import type { ReporterTiming } from './reporter.ts';
import { readState, writeState } from './state-file.ts';
import { type RunningTask, startTask } from './task.ts';
import { RUNNER_CAPABILITIES, RUNNER_VERSION } from './version.ts';

/** Poll timing; tests shorten it. */
export type PollTiming = {
  readonly intervalMs: number;
  readonly maxIntervalMs: number;
  readonly fetchTimeoutMs: number;
};

export const DEFAULT_POLL: PollTiming = {
  intervalMs: 2000,
  maxIntervalMs: 5000,
  fetchTimeoutMs: 5000,
};

export type DaemonOptions = {
  readonly file: string;
  readonly capacity: number;
  /** How long running tasks may go on after a stop request before they are cancelled. */
  readonly graceMs: number;
  /** Labels given on the command line; they replace the registered ones. */
  readonly labels?: readonly string[];
  readonly workRoot: string;
  readonly hostEnv: Record<string, string | undefined>;
  readonly killGraceMs: number;
  /** Aborted when the daemon should stop (SIGTERM, SIGINT). */
  readonly stop: AbortSignal;
  readonly log: (message: string) => void;
  readonly poll?: PollTiming;
  readonly reporting?: ReporterTiming;
  /**
   * Take one task, run it and stop (`--once`): for a job per machine or container. A poll that
   * cannot reach the server ends the daemon with a failure instead of being retried.
   */
  readonly once?: boolean;
  /** How jobs are kept from the runner's credentials (isolation.ts); default `auto`. */
  readonly isolation?: IsolationMode;
  /** The account jobs run as when the daemon runs as root. */
  readonly jobUser?: string;
};

/** The message by which Gitea (and Kiln) say the runner's registration is gone. */
const UNREGISTERED = 'unregistered runner';

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (stop.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    }
    stop.addEventListener('abort', done, { once: true });
  });
}

function jitter(ms: number): number {
  return ms * (0.8 + Math.random() * 0.4);
}

/** Runs until stopped; answers the process exit code. */
export async function runDaemon(options: DaemonOptions): Promise<number> {
  const { log } = options;
  let state = await readState(options.file);
  if (options.labels && options.labels.join(',') !== state.labels.join(',')) {
    state = { ...state, labels: [...options.labels] };
    await writeState(options.file, state);
  }
  let isolation: Isolation;
  try {
    isolation = await chooseIsolation({
      mode: options.isolation ?? 'auto',
      ...(options.jobUser !== undefined ? { jobUser: options.jobUser } : {}),
      registrationFile: options.file,
      workRoot: options.workRoot,
      hostEnv: options.hostEnv,
    });
  } catch (error) {
    if (!(error instanceof IsolationError)) throw error;
    log(`cannot isolate jobs: ${error.message}`);
    return 1;
  }
  // Jobs run as another account: the file is the runner's alone, whatever was done to it since.
  if (isolation.confinement?.account) await chmod(options.file, 0o600);
  const { runner } = runnerClients(state.address, state);
  try {
    const declared = await runner.declare({
      version: RUNNER_VERSION,
      labels: labelNames(state.labels),
      capabilities: [...RUNNER_CAPABILITIES],
    });
    const r = declared.runner;
    log(
      `declared runner "${r?.name ?? state.name}" version ${r?.version ?? RUNNER_VERSION} labels ${(r?.labels ?? []).join(',')}; ${isolation.description}`,
    );
  } catch (error) {
    const e = ConnectError.from(error);
    if (e.code === Code.Unimplemented)
      log(`the server does not implement Declare: it is too old for this runner`);
    else if (e.code === Code.Unauthenticated)
      log(`runner is no longer registered (${e.rawMessage}): register it again`);
    else log(`declare failed: ${e.message}`);
    return 1;
  }
  const host: HostInput = {
    workRoot: options.workRoot,
    runnerName: state.name,
    instance: state.address,
    hostEnv: options.hostEnv,
    killGraceMs: options.killGraceMs,
    ...(isolation.confinement ? { confinement: isolation.confinement } : {}),
  };
  const account = isolation.confinement?.account;
  let sweeping = Promise.resolve();
  const poll = options.poll ?? DEFAULT_POLL;
  const running = new Set<RunningTask>();
  let version = 0n;
  let emptyPolls = 0;
  let unregistered: ConnectError | undefined;
  let tookOne = false;
  const onlyOne = state.ephemeral || options.once === true;
  let unreachable = false;
  while (!options.stop.aborted && !(onlyOne && tookOne)) {
    if (running.size >= options.capacity) {
      await Promise.race([
        ...[...running].map((t) => t.done),
        sleep(poll.maxIntervalMs, options.stop),
      ]);
      continue;
    }
    let gotTask = false;
    try {
      const answer = await runner.fetchTask(
        { tasksVersion: version },
        { timeoutMs: poll.fetchTimeoutMs },
      );
      if (answer.tasksVersion > version) version = answer.tasksVersion;
      if (answer.task) {
        gotTask = true;
        tookOne = true;
        // A task was handed out: the next poll asks for a real lookup again.
        version = 0n;
        const context = (answer.task.context ?? {}) as Record<string, unknown>;
        const refused = isolation.unisolated !== undefined && isForkPull(context);
        // No job starts while the processes of the last one are being killed.
        await sweeping;
        const task = startTask({
          client: runner,
          task: answer.task,
          host,
          log,
          ...(options.reporting ? { timing: options.reporting } : {}),
          ...(refused ? { refusal: forkPullRefusal(isolation.unisolated ?? '') } : {}),
        });
        // Done once the job account is swept too (and the task is off the running set), so the
        // capacity wait above never sees a finished task still counted.
        const tracked: RunningTask = {
          cancel: () => task.cancel(),
          done: task.done
            .then(async (result) => {
              if (account !== undefined && running.size === 1) {
                sweeping = sweepAccount(account, log);
                await sweeping;
              }
              return result;
            })
            .finally(() => running.delete(tracked)),
        };
        running.add(tracked);
      }
    } catch (error) {
      const e = ConnectError.from(error);
      if (e.code === Code.Unauthenticated) {
        unregistered = e;
        break;
      }
      if (e.code !== Code.DeadlineExceeded) log(`fetching a task failed: ${e.message}`);
      if (options.once && e.code !== Code.DeadlineExceeded) {
        unreachable = true;
        break;
      }
    }
    emptyPolls = gotTask ? 0 : emptyPolls + 1;
    const interval = Math.min(
      poll.intervalMs * 2 ** Math.max(0, emptyPolls - 1),
      poll.maxIntervalMs,
    );
    if (!gotTask) await sleep(jitter(interval), options.stop);
  }
  await drain(running, options);
  if (unregistered) {
    log(`runner is no longer registered (${unregistered.rawMessage}): stopping`);
    if (state.ephemeral && unregistered.rawMessage.includes(UNREGISTERED)) {
      await unlink(options.file).catch(() => undefined);
    }
    return 1;
  }
  if (unreachable) return 1;
  log('runner stopped');
  return 0;
}

async function sweepAccount(account: JobAccount, log: (message: string) => void): Promise<void> {
  const killed = await killAccountProcesses(account.uid);
  if (killed > 0) log(`killed ${killed} process(es) of ${account.name} left behind by a job`);
}

/** Waits for running tasks; after a stop request, cancels those still going after the grace. */
async function drain(running: Set<RunningTask>, options: DaemonOptions): Promise<void> {
  const all = () => Promise.all([...running].map((task) => task.done));
  if (running.size === 0) return;
  if (!options.stop.aborted) {
    await all();
    return;
  }
  options.log(`waiting up to ${options.graceMs / 1000} s for ${running.size} running task(s)`);
  const finished = await Promise.race([
    all().then(() => true),
    new Promise<boolean>((r) => setTimeout(r, options.graceMs, false).unref()),
  ]);
  if (finished) return;
  options.log('grace period over: cancelling running tasks');
  for (const task of running) task.cancel();
  await all();
}
