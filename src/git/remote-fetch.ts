import { Invalid } from '../domain/errors.ts';
import { afterEndOfOptions, runGit } from './command.ts';
import { branchRef, checkFullRef } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/** How long one fetch from another server may take before it is given up. */
const REMOTE_TIMEOUT_MS = 5 * 60_000;

/**
 * Options every command that talks to another server runs with. Redirects are not followed: the
 * address was checked by the caller, and a redirect could lead anywhere (another network
 * included). Nothing is prompted for and no credentials are offered (pinned for every git).
 */
const REMOTE_ARGS = ['-c', 'http.followRedirects=false', '-c', 'http.lowSpeedLimit=1000'];

/**
 * Only `https://` (and `http://` when the caller allows it, for tests on one machine) reach
 * another server: every other transport git knows (`file`, `ext::`, ssh…) would reach this
 * server's own disk or run programs, so a URL another server names is refused unless it is one
 * of those two.
 */
function checkRemoteUrl(url: string, allowHttp: boolean): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const allowed = parsed?.protocol === 'https:' || (allowHttp && parsed?.protocol === 'http:');
  if (!parsed || !allowed || parsed.username || parsed.password) {
    throw new Invalid(`${url} is not an address Kiln fetches from`);
  }
  return parsed.href;
}

/** The branch a remote repository's HEAD names, or undefined when it names none. */
export async function remoteDefaultBranch(
  url: string,
  options: { readonly allowHttp: boolean },
): Promise<string | undefined> {
  const { stdout } = await runGit(
    [
      ...REMOTE_ARGS,
      'ls-remote',
      '--symref',
      ...afterEndOfOptions(checkRemoteUrl(url, options.allowHttp), 'HEAD'),
    ],
    { timeoutMs: REMOTE_TIMEOUT_MS, maxStdoutBytes: 64 * 1024 },
  );
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(stdout.toString('utf8'));
  return match?.[1];
}

/**
 * Copies every branch and tag of the repository at `url` into `target`, replacing what was there
 * under the same names (a new fork's first copy).
 */
export async function fetchAllFromRemote(
  target: RepoHandle,
  url: string,
  options: { readonly allowHttp: boolean },
): Promise<void> {
  await fetchFromRemote(target, url, options, [
    '+refs/heads/*:refs/heads/*',
    '+refs/tags/*:refs/tags/*',
  ]);
}

/**
 * Copies the remote branch `branch` into `target` under `localRef` (forced) and returns the
 * commit it points at now.
 */
export async function fetchRemoteBranch(
  target: RepoHandle,
  url: string,
  branch: string,
  localRef: string,
  options: { readonly allowHttp: boolean },
): Promise<string> {
  await fetchFromRemote(target, url, options, [`+${branchRef(branch)}:${checkFullRef(localRef)}`]);
  const { stdout } = await runGit(['rev-parse', '--verify', '--end-of-options', localRef], {
    gitDir: target.path,
  });
  return stdout.toString('utf8').trim();
}

async function fetchFromRemote(
  target: RepoHandle,
  url: string,
  options: { readonly allowHttp: boolean },
  refspecs: readonly string[],
): Promise<void> {
  const checked = checkRemoteUrl(url, options.allowHttp);
  await requireRepository(target);
  await runGit(
    [
      ...REMOTE_ARGS,
      'fetch',
      '--quiet',
      '--no-write-fetch-head',
      '--no-auto-gc',
      '--no-recurse-submodules',
      ...afterEndOfOptions(checked, ...refspecs),
    ],
    { gitDir: target.path, timeoutMs: REMOTE_TIMEOUT_MS },
  );
}
