import type { Socket } from 'node:net';
import { PassThrough, Readable, type Writable } from 'node:stream';
import { Invalid } from '../domain/errors.ts';
import { type GitChild, type GitLaunch, spawnDirectly } from './git-child.ts';
import { GitError, translateGitError } from './git-error.ts';
import { pinnedConfigArgs } from './pinned-config.ts';
import { noteRepositoryChange } from './repo-changes.ts';
import { GitSpawner } from './spawner.ts';

/**
 * The single runner of git. Every other file in src/git builds an argument array and calls
 * `runGit` (buffered) or `spawnGit` (streamed); nothing here ever goes through a shell.
 */

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_STDERR_BYTES = 16 * 1024;
const DEFAULT_MAX_STDOUT_BYTES = 64 * 1024 * 1024;
const KILL_GRACE_MS = 2_000;

/**
 * The environment every git process starts from. Nothing of the server's own environment leaks
 * in except PATH (git finds its helpers and hooks find `git`) and TMPDIR; no system or user
 * config is read, prompts are off, messages are in English so stderr patterns can be matched,
 * and pathspecs are literal so a user-supplied path is never pathspec magic. No system attributes
 * either: they could select a driver (see pinned-config.ts for the config every git is given).
 */
const PINNED_ENV: Readonly<Record<string, string>> = Object.freeze({
  LC_ALL: 'C',
  LANG: 'C',
  HOME: '/nonexistent',
  XDG_CONFIG_HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: '',
  GIT_LITERAL_PATHSPECS: '1',
  GIT_NO_REPLACE_OBJECTS: '1',
  GIT_ATTR_NOSYSTEM: '1',
});

const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * Variables a caller may not set: each makes git read config, or run a program, that the pinned
 * command line (pinned-config.ts) would otherwise decide.
 */
const PROGRAM_ENV =
  /^GIT_(CONFIG|EXEC_PATH|EXTERNAL_DIFF|SSH|PAGER|EDITOR|SEQUENCE_EDITOR|PROXY_COMMAND|ALLOW_PROTOCOL|PROTOCOL_FROM_USER|ATTR_SOURCE)/;

export interface GitCommandOptions {
  /** The repository the command works on: becomes GIT_DIR and the working directory. */
  gitDir?: string;
  /** Working directory when there is no repository yet (e.g. `init`). */
  cwd?: string;
  /** Extra variables the caller sets on purpose (GIT_PROTOCOL, GIT_AUTHOR_NAME, …). */
  env?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  /** Kill the process after this long; 0 disables. Defaults: 60 s buffered, none streamed. */
  timeoutMs?: number;
  /** Exit codes that count as success (`merge-base --is-ancestor` answers "no" with 1). */
  okExitCodes?: readonly number[];
  maxStderrBytes?: number;
}

export interface SpawnGitOptions extends GitCommandOptions {
  /**
   * Git writes its output straight into this socket (the descriptor is shared with git) instead
   * of a pipe; `stdout` is then an empty stream. For large answers that Node would otherwise
   * only relay.
   */
  stdoutTo?: Socket;
}

export interface RunGitOptions extends GitCommandOptions {
  input?: string | Buffer;
  /** Cap on buffered stdout. Beyond it the process is killed and the run fails … */
  maxStdoutBytes?: number;
  /** … unless this is set: then the output is cut at the cap and `truncated` is true. */
  truncateStdout?: boolean;
}

export interface GitResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
  readonly truncated: boolean;
}

export interface GitExit {
  readonly exitCode: number;
  readonly stderr: string;
}

export interface GitProcess {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /**
   * Settles once the process has exited: resolves for an accepted exit code, rejects with a
   * domain error or a GitError otherwise. A rejection nobody awaits is not an unhandled one.
   */
  readonly done: Promise<GitExit>;
  /** Stops the process (SIGTERM, then SIGKILL); `done` rejects with the reason given. */
  kill(reason?: string): void;
}

/** The environment for one git process: the pinned base plus the caller's explicit variables. */
export function gitEnvironment(
  extra: Readonly<Record<string, string>> = {},
  gitDir?: string,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...PINNED_ENV, PATH: process.env.PATH ?? '/usr/bin:/bin' };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  for (const [name, value] of Object.entries(extra)) {
    if (
      !ENV_NAME.test(name) ||
      name in PINNED_ENV ||
      PROGRAM_ENV.test(name) ||
      name === 'PATH' ||
      name === 'GIT_DIR'
    ) {
      throw new Error(`git environment variable ${name} may not be set by callers`);
    }
    if (value.includes('\0')) throw new Invalid(`environment value for ${name} contains NUL`);
    env[name] = value;
  }
  if (gitDir !== undefined) env.GIT_DIR = gitDir;
  return env;
}

/**
 * Starts git with streamed stdin/stdout. The caller must consume stdout; stderr is captured up to
 * a bound. Aborting the signal, hitting the timeout or calling `kill` terminates the process.
 *
 * @example
 *   const proc = spawnGit(['archive', '--format=zip', sha], { gitDir });
 *   proc.stdout.pipe(response);
 *   await proc.done;
 */
export function spawnGit(args: readonly string[], options: SpawnGitOptions = {}): GitProcess {
  const okExitCodes = options.okExitCodes ?? [0];
  const maxStderr = options.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES;
  const env = gitEnvironment(options.env, options.gitDir);
  // Enforced here, for every caller: hooks only from Kiln's directory, no configured programs.
  const child = startGit({
    args: [...pinnedConfigArgs(args), ...args],
    cwd: options.gitDir ?? options.cwd,
    env,
    stdoutTo: options.stdoutTo,
  });

  const stderrChunks: Buffer[] = [];
  let stderrBytes = 0;
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderrBytes >= maxStderr) return;
    const part = chunk.subarray(0, maxStderr - stderrBytes);
    stderrChunks.push(part);
    stderrBytes += part.length;
  });
  const stderrText = () => Buffer.concat(stderrChunks).toString('utf8').trim();
  // Git may exit before reading all of its input (an error, or upload-pack being done); the exit
  // status says what happened, so a broken pipe on stdin is not an error of its own.
  child.stdin.on('error', () => {});
  const stdout = child.stdout ?? Readable.from([]);
  stdout.on('error', () => {});

  let killReason: string | undefined;
  // Closed means git and everything holding its pipes are gone; git alone exiting is not enough.
  let closed = false;
  const kill = (reason = 'was stopped') => {
    if (closed) return;
    // Once git has exited, its own status stands; only what it left behind is stopped.
    if (!child.hasExited()) killReason ??= reason;
    child.stdin.destroy();
    child.signal('SIGTERM');
    setTimeout(() => {
      if (!closed) child.signal('SIGKILL');
    }, KILL_GRACE_MS).unref();
  };

  const timeoutMs = options.timeoutMs ?? 0;
  const timer =
    timeoutMs > 0
      ? setTimeout(() => kill(`timed out after ${timeoutMs} ms`), timeoutMs)
      : undefined;
  const onAbort = () => kill('was aborted');
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  const done = child.ended.then((end): GitExit => {
    closed = true;
    // Whatever it was, it may have moved refs or HEAD: facts read before are read again.
    noteRepositoryChange();
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    const stderr = stderrText();
    const { code, signal } = end;
    if (end.error && !end.started) {
      const outcome = { exitCode: null, stderr };
      throw new GitError(args, outcome, { cause: end.error, reason: 'could not start' });
    }
    // A reason of our own (a kill, or the spawner lost) says more than the status it caused.
    const reason = end.error?.message ?? killReason;
    if (reason !== undefined) {
      throw translateGitError(new GitError(args, { exitCode: code, signal, stderr }, { reason }));
    }
    if (code !== null && okExitCodes.includes(code)) return { exitCode: code, stderr };
    throw translateGitError(new GitError(args, { exitCode: code, signal, stderr }));
  });
  done.catch(() => {});
  return {
    get pid() {
      return child.pid;
    },
    stdin: child.stdin,
    stdout,
    done,
    kill,
  };
}

let spawner: GitSpawner | undefined;

/** Process id of the git spawner, once started (diagnostics and tests). */
export function gitSpawnerPid(): number | undefined {
  return spawner?.pid;
}

/**
 * Starts git through the spawner (one helper process forked once, so the server's event loop never
 * waits for a fork of the whole server), or directly when `KILN_GIT_SPAWNER=0`.
 */
function startGit(launch: GitLaunch): GitChild {
  if (process.env.KILN_GIT_SPAWNER === '0') return spawnDirectly(launch);
  spawner ??= new GitSpawner();
  return spawner.start(launch);
}

/**
 * Runs git to completion with stdout buffered.
 *
 * @example
 *   const { stdout } = await runGit(['for-each-ref', '--format=%(refname)'], { gitDir });
 */
export async function runGit(
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitResult> {
  const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES;
  const proc = spawnGit(args, { timeoutMs: DEFAULT_TIMEOUT_MS, ...options });
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  proc.stdout.on('data', (chunk: Buffer) => {
    if (truncated) return;
    if (size + chunk.length > maxStdout) {
      chunks.push(chunk.subarray(0, maxStdout - size));
      size = maxStdout;
      truncated = true;
      proc.kill(options.truncateStdout ? 'was cut short' : `wrote more than ${maxStdout} bytes`);
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
  });
  proc.stdin.end(options.input);
  try {
    const exit = await proc.done;
    if (truncated && !options.truncateStdout) {
      throw new GitError(
        args,
        { exitCode: exit.exitCode, stderr: exit.stderr },
        { reason: `wrote more than ${maxStdout} bytes` },
      );
    }
    return {
      stdout: Buffer.concat(chunks, size),
      stderr: exit.stderr,
      exitCode: exit.exitCode,
      truncated,
    };
  } catch (error) {
    if (
      truncated &&
      options.truncateStdout &&
      error instanceof GitError &&
      error.reason === 'was cut short'
    ) {
      return { stdout: Buffer.concat(chunks, size), stderr: '', exitCode: 0, truncated };
    }
    throw error;
  }
}

/**
 * Git's stdout as a stream for a consumer far away (an HTTP response): it ends only once git has
 * exited successfully, fails with git's error otherwise (so a truncated archive or pack never
 * looks complete), and destroying it stops git.
 */
export function outputStream(proc: GitProcess): Readable {
  const output = new PassThrough();
  let drained = false;
  let exited = false;
  const finish = () => {
    if (drained && exited) output.end();
  };
  proc.stdout.pipe(output, { end: false });
  proc.stdout.once('end', () => {
    drained = true;
    finish();
  });
  proc.done.then(
    () => {
      exited = true;
      finish();
    },
    (error: Error) => output.destroy(error),
  );
  output.once('close', () => proc.kill('the reader went away'));
  return output;
}

/**
 * Checks one user-supplied value before it becomes an argument: never empty, never starting with
 * a dash (so git cannot read it as an option), never containing NUL or a line break.
 */
export function userValue(value: string, what = 'value'): string {
  if (value.length === 0) throw new Invalid(`${what} must not be empty`);
  if (value.startsWith('-')) throw new Invalid(`${what} must not start with "-"`);
  if (/[\0\r\n]/.test(value)) throw new Invalid(`${what} must not contain control characters`);
  return value;
}

/** `--end-of-options` and then user-supplied revisions, each checked by `userValue`. */
export function afterEndOfOptions(...values: readonly string[]): string[] {
  return ['--end-of-options', ...values.map((value) => userValue(value, 'revision'))];
}

/** `--` and then user-supplied paths, each checked by `userValue`. */
export function afterDoubleDash(...paths: readonly string[]): string[] {
  return ['--', ...paths.map((path) => userValue(path, 'path'))];
}
