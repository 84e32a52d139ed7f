/**
 * The git spawner: a small Node process, started once by the server (`spawner.ts`), that starts
 * git on the server's behalf. Starting a process from Node forks the whole calling process, whose
 * page tables the kernel copies while the caller's thread waits; forking this process (about
 * 25 MB of its own, and the `node` binary's pages it shares) costs a fraction of forking the
 * server, and the server's event loop does not wait for it at all.
 *
 * For each request it starts git with piped stdio and hands the three pipe ends back over the IPC
 * channel (the descriptors move; no data passes through here), then reports git's exit. It loads
 * nothing but Node's own modules, so its heap stays small.
 *
 * Protocol (JSON over IPC):
 *   server → spawner  { type: 'spawn', id, args, cwd, env, stdoutTo }  (+ the socket for stdout)
 *                     { type: 'kill', id, signal }
 *   spawner → server  { type: 'ready' }
 *                     { type: 'started', id, pid }, then { type: 'pipe', id, fd } three times
 *                     (twice with `stdoutTo`), each with its handle, then { type: 'exit', id, code,
 *                     signal }; or { type: 'failed', id, message } when git could not start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { setPriority } from 'node:os';
import { errorMessage } from '../lib/thrown.ts';

type RawHandle = { readStop?(): void; close(): void; setBlocking?(on: boolean): number };

type SpawnRequest = {
  type: 'spawn';
  id: number;
  args: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  stdoutTo: boolean;
};
type KillRequest = { type: 'kill'; id: number; signal: NodeJS.Signals };

const running = new Map<number, ChildProcess>();

/** Signals git's process group (git runs in its own), else git alone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/**
 * Takes the pipe's handle away from the socket Node made for it, before that socket reads
 * anything: the bytes belong to the server, and Node would otherwise drain git's output here once
 * git exits.
 */
function detach(socket: Socket): RawHandle | undefined {
  const holder = socket as unknown as { _handle: (RawHandle & { onread?: unknown }) | null };
  const handle = holder._handle;
  if (!handle) return undefined;
  handle.readStop?.();
  handle.onread = () => {};
  holder._handle = null;
  socket.destroy();
  return handle;
}

function send(message: object, handle?: RawHandle): void {
  if (!process.connected) return;
  // The handle's descriptor is copied into the server once the message is through; only then is
  // this process's copy closed, so that git's pipes see their ends close when the server's do.
  process.send?.(message, handle as never, undefined, () => handle?.close());
}

function start(request: SpawnRequest, stdoutTo: RawHandle | undefined): void {
  const { id } = request;
  let child: ChildProcess;
  try {
    child = spawn('git', request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: ['pipe', (stdoutTo as never) ?? 'pipe', 'pipe'],
      // Its own process group, so that stopping git also stops what git started.
      detached: true,
    });
  } finally {
    // libuv made the shared descriptor blocking for git; the server's end must stay non-blocking.
    // This copy of the client's socket must not outlive the start, or the connection would stay
    // open after the server closed it.
    if (stdoutTo) {
      stdoutTo.setBlocking?.(false);
      stdoutTo.close();
    }
  }
  const pipes = [child.stdin, child.stdout, child.stderr].map((s) => (s ? detach(s as Socket) : s));
  if (child.pid === undefined) {
    for (const pipe of pipes) pipe?.close();
    child.once('error', (error) => send({ type: 'failed', id, message: error.message }));
    return;
  }
  running.set(id, child);
  send({ type: 'started', id, pid: child.pid });
  pipes.forEach((pipe, fd) => {
    if (pipe) send({ type: 'pipe', id, fd }, pipe);
  });
  child.once('exit', (code, signal) => {
    running.delete(id);
    send({ type: 'exit', id, code, signal });
  });
}

process.on('message', (message: SpawnRequest | KillRequest, handle?: RawHandle) => {
  if (message.type === 'spawn') {
    try {
      start(message, message.stdoutTo ? handle : undefined);
    } catch (error) {
      send({ type: 'failed', id: message.id, message: errorMessage(error) });
    }
  } else if (message.type === 'kill') {
    const child = running.get(message.id);
    if (child) signalGroup(child, message.signal);
  }
});

// The server is gone (exited, crashed or killed): nothing may outlive it, so every git still
// running is stopped, with whatever it started, before this process leaves.
function leave(): void {
  for (const child of running.values()) signalGroup(child, 'SIGKILL');
  process.exit(0);
}
process.on('disconnect', leave);
// Node holds 'disconnect' back while a handle it sent waits for the server's acknowledgement,
// which never comes from a server that died meanwhile; the channel is then already marked
// disconnected, and the server's death also shows as a new parent.
const server = process.ppid;
setInterval(() => {
  if (!process.connected || process.ppid !== server) leave();
}, 500).unref();

// Signals meant for the server's whole process group (Ctrl-C in a terminal, a service manager
// stopping it) must not stop the helper first: the server may still be finishing clones while it
// shuts down. The helper leaves when the server does (above).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});

/**
 * Niceness of this helper, and so of every git it starts (a child inherits the niceness of the
 * thread that forked it: this process's only one). Clones and pushes are most of the CPU a busy
 * server spends; when they and the server's event loop want the same core, the event loop
 * answering everyone else gets it first, as with the render and hashing threads. Git still has
 * every cycle nothing else wants.
 */
const GIT_NICENESS = 5;
try {
  setPriority(GIT_NICENESS);
} catch {
  // Not permitted (some containers): git runs at the server's priority, as when started directly.
}

send({ type: 'ready' });
