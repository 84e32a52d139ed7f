import { setPriority } from 'node:os';

/** Niceness of Kiln's worker threads (hashing, rendering, workflow parsing). */
const WORKER_NICENESS = 10;

/**
 * Lowers the calling worker thread's priority. On Linux a thread has its own niceness
 * (`setPriority` without a pid changes only the calling thread), so on a machine with every core
 * busy a worker's costly job waits for the CPU, not the thread that answers requests. Where that
 * is not permitted (some containers) the work still runs off the event loop, only less politely.
 */
export function yieldToRequestThread(): void {
  try {
    setPriority(WORKER_NICENESS);
  } catch {
    // Not permitted: see above.
  }
}
