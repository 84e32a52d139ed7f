/**
 * How the daemon keeps jobs from its credentials, chosen once at start (`--isolation`):
 * - `user`: the daemon runs as root and every step runs as an unprivileged account
 *   (`--job-user`, by default `kiln-runner-job` where it exists, else `nobody`);
 * - `bwrap`: every step runs in a bubblewrap sandbox (as the job account too when root);
 * - `auto` (the default): as root, the account and, where it works, the sandbox; otherwise the
 *   sandbox where it works; otherwise none;
 * - `none`: steps run as the daemon, able to read its registration file. Such a daemon takes no
 *   job of a pull request from a fork (fork-pulls.ts).
 * Each choice is tried for real (a Node started the way steps are, in a task-like directory)
 * before the daemon takes a job, so a sandbox that cannot start here is found at start.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { confine, handOver, within } from './engine/confinement.ts';
import { which } from './engine/shell.ts';
import type { JobAccount, JobConfinement } from './engine/task-input.ts';
import { errorMessage } from './thrown.ts';

export const ISOLATION_MODES = ['auto', 'user', 'bwrap', 'none'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** The account used when `--job-user` is not given and it exists. */
export const DEDICATED_ACCOUNT = 'kiln-runner-job';

/** What the daemon chose; `confinement` undefined means unisolated. */
export type Isolation = {
  readonly confinement?: JobConfinement;
  /** For the start-up line. */
  readonly description: string;
  /** Why jobs run unisolated, when they do. */
  readonly unisolated?: string;
};

function unisolated(reason: string): Isolation {
  return {
    description: `jobs run unisolated: ${reason}; pull requests from forks are refused`,
    unisolated: reason,
  };
}

/** The asked-for isolation cannot be had here; the message says why and what to do. */
export class IsolationError extends Error {}

export type IsolationOptions = {
  readonly mode: IsolationMode;
  readonly jobUser?: string;
  readonly registrationFile: string;
  readonly workRoot: string;
  readonly hostEnv: Record<string, string | undefined>;
};

/** An account of /etc/passwd by name or uid, with its primary group. */
export function lookupAccount(name: string, passwd: string): JobAccount | undefined {
  for (const line of passwd.split('\n')) {
    const [user = '', , uid = '', gid = ''] = line.split(':');
    if (user === '' || !/^\d+$/.test(uid) || !/^\d+$/.test(gid)) continue;
    if (user === name || uid === name) return { name: user, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

function jobAccount(requested: string | undefined): JobAccount {
  const passwd = readFileSync('/etc/passwd', 'utf8');
  const name =
    requested ?? (lookupAccount(DEDICATED_ACCOUNT, passwd) ? DEDICATED_ACCOUNT : 'nobody');
  const account = lookupAccount(name, passwd);
  if (account === undefined) throw new IsolationError(`--job-user: no account "${name}" here`);
  if (account.uid === 0 || account.gid === 0)
    throw new IsolationError(`--job-user: "${name}" is root's; name an unprivileged account`);
  return account;
}

/**
 * Directories a sandbox hides (the registration file's, the daemon's home and runtime directory)
 * and the read-only binds that give back the runner's Node and the host PATH from under them —
 * none that is or holds a hidden secret or lies in the work root.
 */
export function sandboxView(
  options: IsolationOptions,
  account?: JobAccount,
): { hidden: string[]; tools: string[] } {
  const secrets = [dirname(resolve(options.registrationFile)), resolve(options.workRoot)];
  const hidden = [secrets[0] ?? '/', options.hostEnv.HOME, options.hostEnv.XDG_RUNTIME_DIR]
    .filter((dir): dir is string => dir !== undefined && isAbsolute(dir) && dir !== '/')
    .map((dir) => resolve(dir));
  const covered = [...hidden, '/tmp', '/var/tmp'];
  const wanted = [dirname(process.execPath), ...(options.hostEnv.PATH ?? '').split(delimiter)];
  const tools = [...new Set(wanted)].filter(
    (dir) =>
      isAbsolute(dir) &&
      covered.some((hide) => within(dir, hide)) &&
      !within(dir, secrets[1] ?? '/') &&
      !secrets.some((secret) => within(secret, dir)) &&
      mayEnter(dir, account),
  );
  return { hidden: [...new Set(hidden)], tools };
}

/**
 * Whether steps could enter `dir` (bwrap cannot bind what its user cannot reach): as the
 * runner, or else as `account`, judged by the mode bits of each directory on the way.
 */
function mayEnter(dir: string, account: JobAccount | undefined): boolean {
  try {
    if (account === undefined) {
      accessSync(dir, constants.X_OK);
      return true;
    }
    let path = dir;
    for (;;) {
      const { mode, uid, gid } = statSync(path);
      const bit = uid === account.uid ? 0o100 : gid === account.gid ? 0o010 : 0o001;
      if ((mode & bit) === 0) return false;
      if (path === dirname(path)) return true;
      path = dirname(path);
    }
  } catch {
    return false;
  }
}

/** Starts Node the way a step would be started; undefined when it ran, else why not. */
async function tryOut(confinement: JobConfinement, workRoot: string): Promise<string | undefined> {
  let root: string;
  try {
    await mkdir(workRoot, { recursive: true });
    root = await mkdtemp(join(workRoot, 'probe-'));
  } catch (error) {
    throw new IsolationError(`cannot work in ${workRoot}: ${errorMessage(error)}`);
  }
  try {
    await handOver(confinement, root);
    const spec = confine(
      confinement,
      { program: process.execPath, args: ['-e', ''], cwd: root, env: { PATH: '/usr/bin:/bin' } },
      { root, workRoot, toolCache: root, actions: root },
    );
    return await new Promise<string | undefined>((done) => {
      execFile(
        spec.program,
        [...spec.args],
        { cwd: spec.cwd, env: spec.env, timeout: 20_000, ...uidGid(spec) },
        (error, _stdout, stderr) =>
          done(error ? (stderr.trim().split('\n')[0] ?? '') || error.message : undefined),
      );
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function uidGid(spec: { uid?: number; gid?: number }) {
  return spec.uid === undefined ? {} : { uid: spec.uid, gid: spec.gid ?? spec.uid };
}

function describe(c: JobConfinement): string {
  const who = c.account ? `as ${c.account.name} (uid ${c.account.uid})` : 'as the runner';
  return `jobs run ${who}${c.bwrap ? ' in a bwrap sandbox' : ', without a sandbox'}`;
}

/** Chooses and tries the isolation; throws IsolationError when the asked-for one fails. */
export async function chooseIsolation(options: IsolationOptions): Promise<Isolation> {
  const { mode } = options;
  if (mode === 'none') {
    return unisolated('--isolation none');
  }
  const root = process.getuid?.() === 0;
  if (options.jobUser !== undefined && !root)
    throw new IsolationError('--job-user needs the daemon to start as root');
  if (mode === 'user' && !root)
    throw new IsolationError('--isolation user needs the daemon to start as root');
  const account = root ? jobAccount(options.jobUser) : undefined;
  const base = { ...(account ? { account } : {}), ...sandboxView(options, account) };
  const bwrap = which('bwrap', options.hostEnv.PATH ?? '/usr/bin:/bin');
  let sandboxFailure = 'bwrap is not installed (Debian: apt-get install bubblewrap)';
  // The sandbox hides the file's directory; `/` cannot be hidden.
  const inRoot = dirname(resolve(options.registrationFile)) === '/';
  if (inRoot) sandboxFailure = 'the registration file is in /: move it into a directory of its own';
  if (mode !== 'user' && bwrap !== undefined && !inRoot) {
    const sandboxed = { ...base, bwrap };
    const failure = await tryOut(sandboxed, options.workRoot);
    if (failure === undefined) return { confinement: sandboxed, description: describe(sandboxed) };
    sandboxFailure = `bwrap does not work here (${failure})`;
  }
  if (mode === 'bwrap') throw new IsolationError(`--isolation bwrap: ${sandboxFailure}`);
  if (account !== undefined) {
    const failure = await tryOut(base, options.workRoot);
    if (failure !== undefined) {
      throw new IsolationError(
        `jobs cannot run as ${account.name} in ${options.workRoot} (${failure}): choose a --workdir (and a Node installation) that account can reach, e.g. /var/lib/kiln-runner`,
      );
    }
    const note =
      mode === 'user' ? '' : `; ${sandboxFailure}, so jobs running at once can see each other`;
    return { confinement: base, description: `${describe(base)}${note}` };
  }
  return unisolated(`not started as root and ${sandboxFailure}`);
}
