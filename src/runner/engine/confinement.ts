/**
 * How a step's process is kept away from the runner's credentials.
 *
 * Invariant: a job's processes cannot read the runner's credentials — not the registration file,
 * not the daemon's memory, environment or command line, not other jobs' workspaces or task
 * tokens. Two means serve it, alone or together (chosen once by ../isolation.ts):
 * - an account: a daemon started as root runs every step under an unprivileged uid and gid, and
 *   hands that account only the task's own directories and the tool cache (the registration file
 *   stays 0600 root's, the work root 0711);
 * - a sandbox: each step runs in `bwrap` with a PID namespace and `/proc` of its own (the daemon
 *   and other jobs are not there to look at), the host read-only, and tmpfs laid over the
 *   registration file's directory, the daemon's home, the temp directories and the work root,
 *   into which only this task's directories, the tool cache and the action cache (read-only) are
 *   bound again. The network stays: jobs need it.
 */
import { existsSync } from 'node:fs';
import { chown } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import type { JobConfinement } from './task-input.ts';

/** A process about to be started, before or after confinement. */
export type SpawnSpec = {
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly uid?: number;
  readonly gid?: number;
};

/** The directories a confined step may use. */
export type ConfinedDirs = {
  /** The task's own directory (workspace, temp, home). */
  readonly root: string;
  readonly workRoot: string;
  readonly toolCache: string;
  /** The action cache: read-only for steps, written by the runner alone. */
  readonly actions: string;
};

/** Whether `inner` is `outer` or lies below it. */
export function within(inner: string, outer: string): boolean {
  const path = relative(outer, inner);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}

/** The `bwrap` arguments that run `spec` in the sandbox described above. */
export function sandboxArgs(c: JobConfinement, spec: SpawnSpec, dirs: ConfinedDirs): string[] {
  const tmpfs = (dir: string) => (existsSync(dir) ? ['--tmpfs', dir] : []);
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--proc',
    '/proc',
    // The sandbox ends with the runner; --new-session keeps a step off the runner's terminal.
    '--die-with-parent',
    '--new-session',
    ...tmpfs('/tmp'),
    ...tmpfs('/var/tmp'),
    ...c.hidden.flatMap(tmpfs),
    '--tmpfs',
    dirs.workRoot,
    // Chosen at start from the runner's own PATH, never from a step's (GITHUB_PATH is the job's).
    ...c.tools.flatMap((dir) => ['--ro-bind-try', dir, dir]),
    '--bind',
    dirs.root,
    dirs.root,
    '--bind',
    dirs.toolCache,
    dirs.toolCache,
    '--ro-bind-try',
    dirs.actions,
    dirs.actions,
    '--chdir',
    spec.cwd,
    '--',
    spec.program,
    ...spec.args,
  ];
}

/** `spec` as it must be started under `confinement` (unchanged without one). */
export function confine(
  confinement: JobConfinement | undefined,
  spec: SpawnSpec,
  dirs: ConfinedDirs,
): SpawnSpec {
  if (confinement === undefined) return spec;
  const account = confinement.account;
  const asAccount = account ? { uid: account.uid, gid: account.gid } : {};
  if (confinement.bwrap === undefined) return { ...spec, ...asAccount };
  return {
    program: confinement.bwrap,
    args: sandboxArgs(confinement, spec, dirs),
    cwd: spec.cwd,
    env: spec.env,
    ...asAccount,
  };
}

/** Hands `paths` to the job account, when steps run under one; the runner keeps them otherwise. */
export async function handOver(
  confinement: JobConfinement | undefined,
  ...paths: string[]
): Promise<void> {
  const account = confinement?.account;
  if (account === undefined) return;
  for (const path of paths) await chown(path, account.uid, account.gid);
}
