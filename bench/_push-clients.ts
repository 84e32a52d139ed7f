/**
 * A client committing and pushing in a loop, in a worker thread of its own, like the page and
 * runner clients (_page-clients.ts, _runner-clients.ts). Starting git forks the process that
 * starts it, and the calling thread waits while the kernel copies its page tables: from the
 * bench's main thread, which also holds an app and the probe, each commit and push held the
 * probe's own event loop for tens of milliseconds, so the figure measured the bench. The thread
 * runs at the lowest priority, as the clone and push clients of bench/_git-load.ts do: a push's
 * client side (pack-objects, the HTTP helper) runs on the pusher's machine in a real
 * installation, and here it took the two cores from Kiln's request thread (pushed to a bare
 * repository on disk that Kiln never saw, it alone cost the probe 4.3-5.5 × idle).
 *
 *   const pushes = await pushClients({ dir, origin, files: (n) => ({ … }), ms });
 */
import { setPriority } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { GitClient } from '../test/support/git.ts';
import { CLIENT_NICENESS } from './_git-load.ts';

type Load = {
  /** A work tree whose commits go to `origin`'s main. */
  readonly dir: string;
  readonly origin: string;
  /** The path and content of the file each commit changes; `${n}` is appended as a comment. */
  readonly path: string;
  readonly content: string;
  readonly ms: number;
};

/** Commits and pushes back to back until `ms` have passed; resolves with the pushes made. */
export function pushClients(load: Load): Promise<number> {
  const worker = new Worker(new URL(import.meta.url), { workerData: load });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function run({ dir, origin, path, content, ms }: Load): Promise<number> {
  const git = await GitClient.create();
  const end = Date.now() + ms;
  let pushes = 0;
  try {
    while (Date.now() < end) {
      await git.commit(dir, { [path]: `${content}# ${pushes}\n` }, `wide ${pushes}`);
      await git.ok(['push', '-q', origin, 'HEAD:refs/heads/main'], {
        cwd: dir,
        timeoutMs: 300_000,
      });
      pushes++;
    }
  } finally {
    await git.dispose();
  }
  return pushes;
}

if (!isMainThread && parentPort) {
  try {
    setPriority(CLIENT_NICENESS);
  } catch {
    // Not permitted: the client then shares the cores as it is.
  }
  parentPort.postMessage(await run(workerData as Load));
  process.exit(0);
}
