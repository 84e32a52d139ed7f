import { readFileSync } from 'node:fs';
import { descendants } from './_process-memory.ts';

/** CPU a process has used so far, in milliseconds: its own, and that of children it has reaped. */
export type CpuSoFar = { readonly own: number; readonly reaped: number };

/** From /proc: utime, stime, cutime and cstime (fields 14 to 17, in ticks of 10 ms). */
export function cpuSoFar(pid: number | 'self'): CpuSoFar {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(') ') + 2)
    .split(' ')
    .map(Number);
  const ms = (index: number) => (fields[index] ?? 0) * 10;
  return { own: ms(11) + ms(12), reaped: ms(13) + ms(14) };
}

/**
 * CPU of a server and everything under it: the node processes (the server, its git spawner)
 * and git, which its parent reaps once it has exited. Read before and after some work; the
 * difference is what that work cost, once its git processes have ended.
 */
export async function serverCpu(pid: number): Promise<{ node: number; git: number }> {
  const server = cpuSoFar(pid);
  let node = server.own;
  let git = server.reaped;
  for (const child of await descendants(pid)) {
    try {
      const usage = cpuSoFar(child);
      node += usage.own;
      git += usage.reaped;
    } catch {
      // Gone between the listing and the read.
    }
  }
  return { node, git };
}
