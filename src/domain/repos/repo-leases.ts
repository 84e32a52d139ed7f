import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../../lib/ids.ts';
import type { HousekeepingStore } from './housekeeping.store.ts';

/**
 * The housekeeping leases of repository directories, as code outside housekeeping takes them
 * (a fork lending objects, a dump copying a repository): claim and give back, nothing else.
 */
export type RepoLeaseClaims = Pick<HousekeepingStore, 'claim' | 'release'>;

/** How long a lease outlives a holder that dies (`holdMs`) and how long to wait for one. */
export type LeaseTimes = { readonly holdMs: number; readonly waitMs: number };

/**
 * Runs `work` while holding the housekeeping lease of the repository directory `repoKey`, for
 * code that should not see its object files rewritten meanwhile (forks being given copies of a
 * lender's objects). Waits up to `waitMs` while a run holds it, then goes ahead without: a lease
 * left by a process that died must not hold up what needs doing. `holdMs` bounds how long the
 * lease outlives a process that dies holding it.
 */
export async function withLease<T>(
  store: RepoLeaseClaims,
  repoKey: string,
  times: LeaseTimes,
  work: () => Promise<T>,
): Promise<T> {
  const release = await takeLease(store, repoKey, times);
  try {
    return await work();
  } finally {
    await release?.();
  }
}

/**
 * Takes the lease, waiting up to `waitMs` while another holder has it; returns what gives it
 * back, or undefined when the wait ran out.
 */
export async function takeLease(
  store: RepoLeaseClaims,
  repoKey: string,
  times: LeaseTimes,
): Promise<(() => Promise<void>) | undefined> {
  const holder = `${hostname()}:${process.pid}:${newId().slice(0, 8)}`;
  const deadline = Date.now() + times.waitMs;
  while (!(await store.claim(repoKey, holder, Date.now(), times.holdMs))) {
    if (Date.now() > deadline) return undefined;
    await sleep(250);
  }
  return () => store.release(repoKey, holder, undefined);
}
