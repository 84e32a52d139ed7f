/**
 * Runs one step's process in its own process group, so that cancelling or timing out a step stops
 * everything it started (SIGTERM to the group, SIGKILL after a grace), and hands its output on
 * as the complete lines of each piece read, so that what is done per piece (a check for secrets)
 * is not done per line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import { type LinesHandler, openFifos, readFifo, readStream, releaseFifo } from './output-pipes.ts';

/** How a step process ended. */
export type ProcessEnd = {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
};

export type ProcessOptions = {
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Called with the complete lines of each piece of stdout or stderr, without line breaks. */
  readonly onLines: LinesHandler;
  /**
   * A lasting directory for the named pipes through which a step's output is read in large
   * pieces (see output-pipes.ts); without it, ordinary pipes (enough for a quiet process).
   */
  readonly pipeDir?: string;
  /** Aborting it cancels the step. */
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** The account to run as (a runner started as root runs steps under another). */
  readonly uid?: number;
  readonly gid?: number;
};

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Starts the process and resolves once it and its output streams have ended. */
export async function runProcess(options: ProcessOptions): Promise<ProcessEnd> {
  const pipeDir = options.pipeDir;
  const fifos = pipeDir === undefined ? undefined : await openFifos(pipeDir, 2);
  const [out, err] = fifos ?? [];
  let child: ChildProcess;
  try {
    child = spawn(options.program, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', out?.writer ?? 'pipe', err?.writer ?? 'pipe'],
      detached: true,
      // With uid and gid set, the child also drops the runner's supplementary groups (libuv).
      ...(options.uid !== undefined ? { uid: options.uid } : {}),
      ...(options.gid !== undefined ? { gid: options.gid } : {}),
    });
  } catch (error) {
    for (const fifo of fifos ?? []) closeSync(fifo.reader);
    throw error;
  } finally {
    // The child has its own copies now; it alone decides when the output ends.
    for (const fifo of fifos ?? []) closeSync(fifo.writer);
  }
  const output = Promise.all(
    [out, err].map((fifo, index) => {
      if (fifo && pipeDir)
        return readFifo(fifo.reader, options.onLines).then(() => releaseFifo(pipeDir, fifo));
      const stream = index === 0 ? child.stdout : child.stderr;
      return stream ? readStream(stream, options.onLines) : undefined;
    }),
  );
  let timedOut = false;
  let cancelled = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    killGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), options.killGraceMs);
  };
  const onAbort = () => {
    cancelled = true;
    stop();
  };
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  const timeout =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => {
    child.on('error', (error) => {
      options.onLines([`failed to start ${options.program}: ${error.message}`]);
      resolve(null);
    });
    child.on('exit', (code) => resolve(code));
  });
  await output;
  clearTimeout(timeout);
  clearTimeout(killTimer);
  options.signal.removeEventListener('abort', onAbort);
  return { exitCode, timedOut, cancelled };
}
