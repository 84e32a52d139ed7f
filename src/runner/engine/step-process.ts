/**
 * Runs one step's process in its own process group, so that cancelling or timing out a step stops
 * everything it started (SIGTERM to the group, SIGKILL after a grace), and hands its output on
 * line by line.
 */
import { spawn } from 'node:child_process';

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
  /** Called for every complete line of stdout and stderr, without its line break. */
  readonly onLine: (line: string) => void;
  /** Aborting it cancels the step. */
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
};

/** Splits a byte stream into lines, keeping the unfinished tail for the next chunk. */
function lineSplitter(onLine: (line: string) => void) {
  let tail = '';
  return {
    push(chunk: string) {
      const text = tail + chunk;
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        const line = text.slice(start, end);
        onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
        start = end + 1;
      }
      tail = text.slice(start);
    },
    end() {
      if (tail !== '') onLine(tail);
      tail = '';
    },
  };
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Starts the process and resolves once it and its output streams have ended. */
export function runProcess(options: ProcessOptions): Promise<ProcessEnd> {
  return new Promise((resolve) => {
    const child = spawn(options.program, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
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
    const out = lineSplitter(options.onLine);
    const err = lineSplitter(options.onLine);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => err.push(chunk));
    const finish = (exitCode: number | null) => {
      out.end();
      err.end();
      clearTimeout(timeout);
      clearTimeout(killTimer);
      options.signal.removeEventListener('abort', onAbort);
      resolve({ exitCode, timedOut, cancelled });
    };
    child.on('error', (error) => {
      options.onLine(`failed to start ${options.program}: ${error.message}`);
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}
