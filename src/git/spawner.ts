import { type ChildProcess, fork } from 'node:child_process';
import { Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type GitChild,
  type GitChildEnd,
  type GitLaunch,
  signalGroup,
  spawnDirectly,
} from './git-child.ts';

const SCRIPT = fileURLToPath(new URL('./spawner-process.ts', import.meta.url));

type Message =
  | { type: 'ready' }
  | { type: 'started'; id: number; pid: number }
  | { type: 'pipe'; id: number; fd: 0 | 1 | 2 }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'failed'; id: number; message: string };

/**
 * Starts git through one long-lived helper process (`spawner-process.ts`) instead of forking the
 * server for every command: the server forks once, for the helper, and the helper forks git and
 * hands git's pipes back over IPC. The server then reads and writes those pipes itself.
 *
 * If the helper dies, the commands it had started are stopped and fail ("the git spawner
 * stopped"), and the next command starts a new helper. If the helper cannot start at all, every
 * command from then on is started directly.
 */
export class GitSpawner {
  /** The helper's script; another only in tests (one that cannot start, say). */
  readonly #script: string;
  #child: ChildProcess | undefined;
  #ready = false;
  #broken = false;
  #nextId = 1;
  readonly #running = new Map<number, { git: SpawnedGit; launch: GitLaunch }>();

  constructor(options: { script?: string } = {}) {
    this.#script = options.script ?? SCRIPT;
  }

  /** Starts git; the returned pipes work at once, though git starts a moment later. */
  start(launch: GitLaunch): GitChild {
    const stdoutHandle = launch.stdoutTo && handleOf(launch.stdoutTo);
    const helper = this.#broken || (launch.stdoutTo && !stdoutHandle) ? undefined : this.#helper();
    if (!helper) return spawnDirectly(launch);
    const id = this.#nextId++;
    const git = new SpawnedGit(launch.stdoutTo !== undefined, (signal) => {
      // A helper gone meanwhile is taken care of by #lost; nothing to report here.
      if (this.#child === helper && helper.connected)
        helper.send({ type: 'kill', id, signal }, ignore);
    });
    this.#running.set(id, { git, launch });
    helper.channel?.ref();
    const { args, cwd, env } = launch;
    const request = { type: 'spawn', id, args, cwd, env, stdoutTo: stdoutHandle !== undefined };
    // A request that cannot be sent (the helper going, the client's socket closed before its turn)
    // fails its command alone; the helper's other commands go on.
    helper.send(request, stdoutHandle as never, { keepOpen: true }, (error) => {
      if (error) this.#finish(id, failure(error.message));
    });
    return git;
  }

  /** Process id of the helper, if running (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  #helper(): ChildProcess | undefined {
    if (this.#child) return this.#child;
    let child: ChildProcess;
    try {
      child = fork(this.#script, [], {
        // A small heap and no flags of the server's: the helper holds almost nothing.
        execArgv: ['--max-old-space-size=16', '--disable-warning=ExperimentalWarning'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
    } catch {
      this.#broken = true;
      return undefined;
    }
    this.#child = child;
    this.#ready = false;
    child.unref();
    child.on('message', (message: Message, handle?: unknown) => this.#receive(message, handle));
    // Errors of sends are reported to their callbacks; one here means the helper never started.
    child.on('error', () => {
      if (child.pid === undefined) this.#lost(child);
    });
    child.once('exit', () => this.#lost(child));
    return child;
  }

  #receive(message: Message, handle: unknown): void {
    if (message.type === 'ready') {
      this.#ready = true;
      return;
    }
    const entry = this.#running.get(message.id);
    if (!entry) return;
    const { git } = entry;
    if (message.type === 'started') git.started(message.pid);
    else if (message.type === 'pipe') git.attach(message.fd, handle);
    else this.#finish(message.id, message.type === 'exit' ? message : failure(message.message));
  }

  #finish(id: number, end: Partial<GitChildEnd>): void {
    this.#running.get(id)?.git.exited(end);
    this.#running.delete(id);
    if (this.#running.size === 0) this.#child?.channel?.unref();
  }

  /** The helper exited: its commands are stopped and fail; one that never ran starts directly. */
  #lost(child: ChildProcess): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    const neverReady = !this.#ready;
    if (neverReady) this.#broken = true;
    for (const [id, { git, launch }] of this.#running) {
      if (neverReady) {
        git.adopt(spawnDirectly(launch));
        this.#running.delete(id);
      } else {
        git.lose();
        this.#finish(id, {
          error: new Error('the git spawner stopped'),
          started: git.pid !== undefined,
        });
      }
    }
  }
}

const ignore = () => {};

function failure(message: string): Partial<GitChildEnd> {
  return { error: new Error(`could not start git: ${message}`), started: false };
}

function handleOf(socket: Socket): unknown {
  return (socket as unknown as { _handle?: unknown })._handle ?? undefined;
}

/** A git process started by the helper: pipes that work at once, joined to git's when they come. */
class SpawnedGit implements GitChild {
  readonly stdin = new PassThrough();
  readonly stdout: PassThrough | null;
  readonly stderr = new PassThrough();
  pid: number | undefined;
  readonly ended: Promise<GitChildEnd>;
  #resolve!: (end: GitChildEnd) => void;
  #exit: Partial<GitChildEnd> | undefined;
  #openPipes: number;
  readonly #sendSignal: (signal: NodeJS.Signals) => void;
  #pendingSignal: NodeJS.Signals | undefined;

  constructor(stdoutTo: boolean, sendSignal: (signal: NodeJS.Signals) => void) {
    this.stdout = stdoutTo ? null : new PassThrough();
    this.#openPipes = stdoutTo ? 1 : 2;
    this.#sendSignal = sendSignal;
    this.ended = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  hasExited(): boolean {
    return this.#exit !== undefined;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.#exit !== undefined) signalGroup(this.pid, signal);
    else if (this.pid === undefined) this.#pendingSignal = signal;
    else this.#sendSignal(signal);
  }

  started(pid: number): void {
    this.pid = pid;
    if (this.#pendingSignal) this.#sendSignal(this.#pendingSignal);
  }

  /** Joins one of git's pipes, received from the helper, to the stream the caller holds. */
  attach(fd: 0 | 1 | 2, handle: unknown): void {
    const socket = new Socket({
      handle,
      readable: fd !== 0,
      writable: fd === 0,
      allowHalfOpen: true,
    } as never);
    this.#join(fd, socket);
  }

  #join(fd: 0 | 1 | 2, pipe: Readable | NodeJS.WritableStream): void {
    (pipe as PassThrough).on('error', () => {});
    if (fd === 0) {
      const socket = pipe as NodeJS.WritableStream & PassThrough;
      if (this.stdin.destroyed) socket.destroy();
      this.stdin.pipe(socket);
      // As with a pipe of git's own: destroying stdin closes it, and git gone destroys stdin.
      // (Ended, the stream closes too, while the socket may still be writing what it passed.)
      this.stdin.once('close', () => {
        if (!this.stdin.readableEnded) socket.destroy();
      });
      socket.once('close', () => this.stdin.destroy());
      return;
    }
    const target = fd === 1 ? this.stdout : this.stderr;
    const source = pipe as Readable;
    source.once('close', () => this.#pipeClosed());
    if (!target || target.destroyed) source.destroy();
    else {
      source.pipe(target);
      target.once('close', () => source.destroy());
    }
  }

  /** Takes over a git started directly instead. */
  adopt(child: GitChild): void {
    this.pid = child.pid;
    this.#join(0, child.stdin);
    if (child.stdout) this.#join(1, child.stdout);
    this.#join(2, child.stderr);
    this.signal = (signal) => child.signal(signal);
    child.ended.then((end) => this.exited(end));
  }

  exited(end: Partial<GitChildEnd>): void {
    this.#exit = { code: null, signal: null, started: true, ...end };
    if (end.error) {
      this.stdout?.destroy();
      this.stderr.destroy();
      this.stdin.destroy();
      this.#resolve(this.#exit as GitChildEnd);
    } else this.#settle();
  }

  /** The helper is gone: whatever it had started is stopped from here. */
  lose(): void {
    signalGroup(this.pid, 'SIGKILL');
  }

  #pipeClosed(): void {
    this.#openPipes--;
    this.#settle();
  }

  #settle(): void {
    if (this.#exit && this.#openPipes <= 0) this.#resolve(this.#exit as GitChildEnd);
  }
}
