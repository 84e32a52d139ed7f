/**
 * Fetching a remote action with git into the actions cache, once per source, repository and ref.
 *
 * git never asks for anything here: no terminal prompt, no credential helper of the host, no
 * askpass program. A source answers a repository that does not exist (or is private) with 401 or
 * 404 and a ref that does not exist with an empty fetch; all of these end in one message naming
 * the action and the source, so the log says what is wrong instead of git's "could not read
 * Username".
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { JobView } from './job-view.ts';
import { insideCache, remoteAction } from './remote-action.ts';
import { which } from './shell.ts';
import { runProcess } from './step-process.ts';

/** A fetched remote action: its directory and what GITHUB_ACTION_REPOSITORY/_REF name. */
export type FetchedAction = {
  readonly dir: string;
  readonly repository: string;
  readonly ref: string;
};

/** The action is not at its source: the step fails with this message alone. */
export class ActionNotFound extends Error {}

/**
 * What git prints when the source refused the repository or has no such ref, as opposed to a
 * source that could not be reached at all.
 */
const NOT_THERE =
  /could not read (Username|Password)|Authentication failed|not found|couldn't find remote ref|returned error: 40[134]|not a git repository|does not appear to be a git repository/i;

/** Options that keep git from prompting or calling anything of the host's to get credentials. */
const NO_PROMPT = ['-c', 'credential.helper=', '-c', 'core.askPass='];

async function git(
  job: JobView,
  args: string[],
  cwd: string,
  signal: AbortSignal,
): Promise<{ ok: boolean; output: string[] }> {
  const program = which('git', job.path());
  if (!program) throw new Error('git is not installed on this host: remote actions need it');
  const env = {
    PATH: job.path(),
    HOME: job.base.HOME ?? '/tmp',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GCM_INTERACTIVE: 'never',
  };
  const output: string[] = [];
  const end = await runProcess({
    program,
    args: [...NO_PROMPT, ...args],
    cwd,
    env,
    onLines: (lines) => output.push(...lines),
    signal,
    killGraceMs: job.host.killGraceMs,
  });
  return { ok: end.exitCode === 0, output };
}

/** Fetches `uses` (owner/repo[/path]@ref or a full URL) unless cached; answers its directory. */
export async function fetchRemote(
  job: JobView,
  uses: string,
  signal: AbortSignal,
): Promise<FetchedAction> {
  const action = remoteAction(uses, job.setting.actionsUrl);
  const { url, ref, source } = action;
  const repository = url.slice(source.length + 1);
  const cached = join(job.dirs.actions, action.cacheDir);
  // remoteAction keeps every part a plain name; this states the invariant where it matters.
  const dir = join(cached, action.sub);
  if (!insideCache(job.dirs.actions, cached) || !insideCache(cached, dir)) {
    throw new Error(`"uses: ${uses}" names a directory outside the actions cache`);
  }
  if (!existsSync(cached)) {
    job.log(`fetching ${repository}@${ref} from ${source}`);
    const temporary = `${cached}.${randomUUID()}`;
    await mkdir(dirname(temporary), { recursive: true });
    const steps = [
      { args: ['init', '-q', temporary], cwd: job.dirs.temp },
      { args: ['fetch', '-q', '--depth=1', '--no-tags', url, ref], cwd: temporary },
      { args: ['checkout', '-q', 'FETCH_HEAD'], cwd: temporary },
    ];
    for (const step of steps) {
      const result = await git(job, step.args, step.cwd, signal);
      if (result.ok) continue;
      await rm(temporary, { recursive: true, force: true });
      const said = result.output.join('\n');
      if (NOT_THERE.test(said))
        throw new ActionNotFound(`action ${repository}@${ref} not found at ${source}`);
      job.logLines(result.output);
      throw new Error(`cannot fetch action ${repository}@${ref} from ${source}`);
    }
    await rename(temporary, cached).catch(() => rm(temporary, { recursive: true, force: true }));
  }
  return { dir, repository, ref };
}
