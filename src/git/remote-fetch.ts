import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Invalid, TooLarge } from '../domain/errors.ts';
import { afterEndOfOptions, runGit } from './command.ts';
import { branchRef, checkFullRef } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';
import { repositorySizeBytes } from './repo-size.ts';

/** How often a capped fetch measures what it has written so far. */
const SIZE_POLL_MS = 200;

/** How long one fetch from another server may take before it is given up. */
const REMOTE_TIMEOUT_MS = 5 * 60_000;

/**
 * Options every command that talks to another server runs with. Redirects are not followed: the
 * address was checked by the caller, and a redirect could lead anywhere (another network
 * included). Nothing is prompted for and no credentials are offered (pinned for every git).
 */
const REMOTE_ARGS = ['-c', 'http.followRedirects=false', '-c', 'http.lowSpeedLimit=1000'];

/** How the caller lets git reach another server. */
export type RemoteFetchOptions = {
  /** Plain `http://` too (servers on one machine, tests only). */
  readonly allowHttp: boolean;
  /** The address git must connect to for the URL's host and port (checked by the caller). */
  readonly pinned: { readonly host: string; readonly port: number; readonly address: string };
  /**
   * The most bytes the target repository may take on disk once the fetch is done; 0 or absent
   * for no limit. Measured while git writes (the incoming pack included), so a fetch past it is
   * stopped rather than finished.
   */
  readonly maxBytes?: number;
};

/**
 * Options for one URL: git connects to the address the caller checked and resolves nothing
 * itself (`http.curloptResolve`), so DNS cannot change its answer between check and connect.
 */
function remoteArgs(options: RemoteFetchOptions): string[] {
  const { host, port, address } = options.pinned;
  const pinned = address.includes(':') ? `[${address}]` : address;
  return [...REMOTE_ARGS, '-c', `http.curloptResolve=${host}:${port}:${pinned}`];
}

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
  options: RemoteFetchOptions,
): Promise<string | undefined> {
  const { stdout } = await runGit(
    [
      ...remoteArgs(options),
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
  options: RemoteFetchOptions,
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
  options: RemoteFetchOptions,
): Promise<string> {
  const ref = checkFullRef(localRef);
  await fetchFromRemote(target, url, options, [`+${branchRef(branch)}:${ref}`]).catch(
    async (error: unknown) => {
      // Past the limit, what was fetched must not stay reachable under the caller's ref.
      if (error instanceof TooLarge) {
        await runGit(['update-ref', '-d', ref], { gitDir: target.path }).catch(() => {});
      }
      throw error;
    },
  );
  const { stdout } = await runGit(['rev-parse', '--verify', '--end-of-options', localRef], {
    gitDir: target.path,
  });
  return stdout.toString('utf8').trim();
}

async function fetchFromRemote(
  target: RepoHandle,
  url: string,
  options: RemoteFetchOptions,
  refspecs: readonly string[],
): Promise<void> {
  const checked = checkRemoteUrl(url, options.allowHttp);
  await requireRepository(target);
  const limit = options.maxBytes ?? 0;
  const controller = new AbortController();
  const over = async () => ((await repositorySizeBytes(target)) ?? 0) > limit;
  let stopped = false;
  // Invariant: another server cannot make Kiln store more than `maxBytes` for it: the
  // repository is measured while git writes and the fetch is killed as soon as it is past.
  const watch =
    limit > 0
      ? setInterval(() => {
          void over().then(
            (past) => {
              if (past && !stopped) {
                stopped = true;
                controller.abort();
              }
            },
            () => {},
          );
        }, SIZE_POLL_MS)
      : undefined;
  const tooLarge = () =>
    new TooLarge(`the repository is larger than the ${limit} bytes this server copies`);
  try {
    await runGit(
      [
        ...remoteArgs(options),
        'fetch',
        '--quiet',
        '--no-write-fetch-head',
        '--no-auto-gc',
        '--no-recurse-submodules',
        ...afterEndOfOptions(checked, ...refspecs),
      ],
      { gitDir: target.path, timeoutMs: REMOTE_TIMEOUT_MS, signal: controller.signal },
    );
  } catch (error) {
    if (stopped) {
      await removeUnfinishedPacks(target);
      throw tooLarge();
    }
    throw error;
  } finally {
    clearInterval(watch);
  }
  // A fetch quicker than one measurement is judged once it is done.
  if (limit > 0 && (await over())) throw tooLarge();
}

/**
 * Removes the pack a killed fetch was writing (`objects/pack/tmp_*`): git leaves it behind when
 * it is stopped, and it would hold the very bytes the limit refused.
 */
async function removeUnfinishedPacks(target: RepoHandle): Promise<void> {
  const packs = path.join(target.path, 'objects', 'pack');
  const names = await readdir(packs).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith('tmp_'))
      .map((name) => rm(path.join(packs, name), { force: true })),
  );
}
