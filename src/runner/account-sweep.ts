/**
 * After its jobs, nothing of the job account may live on: a step can leave a process behind
 * (`setsid`, a double fork) that escapes its process group and would watch the next job — its
 * environment holds that job's token and secrets, and the account is the same. Once no job of the
 * account is running, every process of the account is killed.
 */
import { readdir, readFile } from 'node:fs/promises';

async function processesOf(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    // Real, effective, saved and filesystem uids: any of them being the account's counts.
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/).map(Number) ?? [];
    if (uids.includes(uid)) pids.push(Number(entry));
  }
  return pids;
}

/** Kills every process running as `uid` (a few rounds, for those forked meanwhile); how many. */
export async function killAccountProcesses(uid: number): Promise<number> {
  let killed = 0;
  for (let round = 0; round < 5; round++) {
    const pids = await processesOf(uid);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // Gone already.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return killed;
}
