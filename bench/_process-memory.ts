/**
 * The resident memory of a server and the processes it started, sampled from Linux's /proc (not
 * a bench itself: bench/run.ts skips `_*.ts`), for the benches' memory figures.
 */
import { readdir, readFile } from 'node:fs/promises';
import { residentBytes } from '../test/git/server-process.ts';

/** Pids of the direct children of `pid` (Linux /proc), whichever of its threads started them. */
async function children(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const listed = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    found.push(...listed.split(' ').filter(Boolean).map(Number));
  }
  return found;
}

/** Pids of every descendant of `pid`: the processes a server runs. */
export async function descendants(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const child of await children(pid)) {
    found.push(child, ...(await descendants(child)));
  }
  return found;
}

/** Whether a process is git (any of its commands); false once it has gone. */
export async function isGit(pid: number): Promise<boolean> {
  const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
  return comm.startsWith('git');
}

export type MemoryPeaks = {
  /** The server process itself. */
  server: number;
  /** The server and its direct children that are not git (Kiln's git spawner), summed. */
  node: number;
  /** Every other process under the server (git), summed. */
  git: number;
  /** Every descendant of the server, git or not, summed. */
  children: number;
};

/**
 * Samples the resident memory (VmRSS) of the server `pid` and its descendants every `intervalMs`
 * until the returned stop, which resolves to the peaks of each sum.
 */
export function sampleMemory(pid: number, intervalMs = 10): () => Promise<MemoryPeaks> {
  const peaks: MemoryPeaks = { server: 0, node: 0, git: 0, children: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const server = (await residentBytes(pid)) ?? 0;
      let node = server;
      let git = 0;
      for (const child of await children(pid)) {
        const bytes = (await residentBytes(child)) ?? 0;
        if (await isGit(child)) git += bytes;
        else node += bytes;
        // Below a helper everything is git, a process forked a moment ago (still a copy of its
        // parent until it executes git) included.
        for (const below of await descendants(child)) git += (await residentBytes(below)) ?? 0;
      }
      peaks.server = Math.max(peaks.server, server);
      peaks.node = Math.max(peaks.node, node);
      peaks.git = Math.max(peaks.git, git);
      peaks.children = Math.max(peaks.children, node - server + git);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return peaks;
  };
}
