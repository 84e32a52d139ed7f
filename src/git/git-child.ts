import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';

/** How a git process ended: its status, or why it never ran or was lost. */
export type GitChildEnd = {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when git could not start (`started` false) or was lost with the spawner. */
  readonly error?: Error;
  readonly started: boolean;
};

/** What starting git needs: its arguments, environment and directory, and where stdout goes. */
export type GitLaunch = {
  readonly args: readonly string[];
  readonly cwd: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  /** Git writes straight into this socket instead of a pipe. */
  readonly stdoutTo?: Socket | undefined;
};

/**
 * One started git process, however it was started (directly or by the spawner): its pipes, its
 * process group to signal, and a promise of its end once it has exited and its pipes are closed.
 */
export interface GitChild {
  /** Known once git has started (at once when started directly). */
  readonly pid: number | undefined;
  readonly stdin: Writable;
  /** Null with `stdoutTo`. */
  readonly stdout: Readable | null;
  readonly stderr: Readable;
  /** True once git itself has exited (what it started may still hold its pipes). */
  hasExited(): boolean;
  /** Signals git's process group. */
  signal(signal: NodeJS.Signals): void;
  readonly ended: Promise<GitChildEnd>;
}

/** Signals a process group led by `pid`, else the process alone when there is no such group. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals, alone?: () => void) {
  try {
    if (pid !== undefined) process.kill(-pid, signal);
  } catch {
    alone?.();
  }
}

/**
 * Starts git from this process (a fork of it, which blocks the event loop while the kernel copies
 * the page tables): the fallback when the spawner is off or cannot start.
 */
export function spawnDirectly(launch: GitLaunch): GitChild {
  const child = spawn('git', launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ['pipe', launch.stdoutTo ?? 'pipe', 'pipe'],
    // Its own process group, so that stopping git also stops what git started (pack-objects,
    // hooks, index-pack): those hold the pipes open and would outlive a kill of git alone.
    detached: true,
    windowsHide: true,
  });
  if (launch.stdoutTo) keepNonBlocking(launch.stdoutTo);
  return fromChildProcess(child);
}

function fromChildProcess(child: ChildProcess): GitChild {
  const ended = new Promise<GitChildEnd>((resolve) => {
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = error;
    });
    child.once('close', (code, signal) => {
      if (spawnError && child.pid === undefined) {
        resolve({ code: null, signal: null, error: spawnError, started: false });
      } else resolve({ code, signal, started: true });
    });
  });
  return {
    pid: child.pid,
    stdin: child.stdin as Writable,
    stdout: child.stdout,
    stderr: child.stderr as Readable,
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
    signal: (signal) => signalGroup(child.pid, signal, () => child.kill(signal)),
    ended,
  };
}

/**
 * libuv makes a descriptor it hands to a child blocking, for the child's sake; the flag belongs
 * to the open socket both processes share, so Node's own end would turn blocking too and a later
 * read or write could stall the event loop. Git copes with a non-blocking descriptor (it polls on
 * EAGAIN), so the flag is put back as soon as the child has started.
 */
function keepNonBlocking(socket: Socket): void {
  const handle = (socket as unknown as { _handle?: { setBlocking?: (on: boolean) => number } })
    ._handle;
  handle?.setBlocking?.(false);
}
