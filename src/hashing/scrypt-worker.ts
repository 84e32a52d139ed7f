/**
 * A password-hashing thread (see scrypt-pool.ts): scrypt runs here, synchronously, at a lower
 * priority than the thread that answers requests, one job at a time.
 */
import { scryptSync } from 'node:crypto';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

/** One hash to compute. */
export type HashJob = {
  readonly password: string;
  readonly salt: Uint8Array;
  readonly keyLength: number;
  readonly options: { N: number; r: number; p: number; maxmem: number };
};

/** The hash, or why scrypt refused (parameters out of range). */
export type HashReply = { readonly hash: Uint8Array } | { readonly error: string };

/**
 * Niceness of a hashing thread. On Linux a thread has its own (`setPriority` without a pid
 * changes only the calling thread), so on a machine with every core busy a flood of sign-ins
 * waits for the CPU instead of the pages.
 */
const HASH_NICENESS = 10;

const port = parentPort;
if (port) {
  try {
    setPriority(HASH_NICENESS);
  } catch {
    // Not permitted (some containers): hashing still runs off the event loop, only less politely.
  }
  port.on('message', (job: HashJob) => {
    let reply: HashReply;
    try {
      reply = { hash: scryptSync(job.password, job.salt, job.keyLength, job.options) };
    } catch (error) {
      reply = { error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
}
