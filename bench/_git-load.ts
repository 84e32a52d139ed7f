/**
 * Clones and pushes in a loop against one Kiln process, for bench/render-load.ts: each one makes
 * Kiln start git (upload-pack, receive-pack and what follows a push), which is what the git
 * spawner takes off Kiln's event loop.
 *
 * The clients' own git (clone, index-pack, the HTTP helper, several processes per clone) costs
 * more CPU than Kiln's side of it. On a real installation it runs on the clients' machines; here
 * it shares the server's two cores, where the scheduler's counters showed Kiln's request thread
 * waiting for a core longer than it ran. `remoteGitLoad` therefore runs the clients from a
 * worker thread at niceness 19 (a thread has its own niceness on Linux, and a child inherits its
 * thread's): they get what the server leaves of the cores, as remote clients would take none.
 */
import { rm } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { GitClient, repoUrl } from '../test/support/git.ts';

export type GitLoadTarget = {
  readonly url: string;
  readonly owner: string;
  readonly repo: string;
  readonly token: string;
};

/** The clients' niceness in `remoteGitLoad`: the lowest priority there is. */
export const CLIENT_NICENESS = 19;

/** How many clients clone and how many push, at the same time. */
const CLONERS = 3;
const PUSHERS = 1;

/**
 * Runs `CLONERS` clients cloning the repository and `PUSHERS` clients pushing a new commit to a
 * branch of their own, each in a loop, until `ms` have passed; resolves with the operations done.
 */
export async function gitLoad(target: GitLoadTarget, ms: number): Promise<number> {
  const git = await GitClient.create();
  const url = repoUrl(target.url, target.owner, target.repo, {
    token: target.token,
    as: 'username',
  });
  let operations = 0;
  try {
    const end = Date.now() + ms;
    const cloner = async () => {
      while (Date.now() < end) {
        const dir = await git.clone(url, ['--bare']);
        await rm(dir, { recursive: true, force: true });
        operations++;
      }
    };
    const pusher = async (client: number) => {
      const work = await git.clone(url);
      for (let i = 0; Date.now() < end; i++) {
        await git.commit(work, { [`load-${client}.txt`]: `${i}\n` }, `load ${i}`);
        await git.ok(['push', '-q', '--force', url, `HEAD:refs/heads/load-${client}`], {
          cwd: work,
        });
        operations++;
      }
    };
    // Every client is waited for before the scratch directory goes, failed or not.
    const settled = await Promise.allSettled([
      ...Array.from({ length: CLONERS }, cloner),
      ...Array.from({ length: PUSHERS }, (_, client) => pusher(client)),
    ]);
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  } finally {
    await git.dispose();
  }
  return operations;
}

type RemoteLoad = { readonly remoteGitLoad: GitLoadTarget; readonly ms: number };

/** `gitLoad` from a worker thread whose git runs at the lowest priority (see above). */
export function remoteGitLoad(target: GitLoadTarget, ms: number): Promise<number> {
  const load: RemoteLoad = { remoteGitLoad: target, ms };
  const worker = new Worker(new URL(import.meta.url), { workerData: load });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

if (!isMainThread && parentPort && (workerData as Partial<RemoteLoad>)?.remoteGitLoad) {
  const { remoteGitLoad: target, ms } = workerData as RemoteLoad;
  try {
    setPriority(CLIENT_NICENESS);
  } catch {
    // Not permitted: the clients then share the cores as they are.
  }
  parentPort.postMessage(await gitLoad(target, ms));
  process.exit(0);
}
