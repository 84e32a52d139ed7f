/**
 * A password-hashing thread (see scrypt-pool.ts): scrypt runs here, synchronously, at a lower
 * priority than the thread that answers requests, one job at a time.
 */
import { scryptSync } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { yieldToRequestThread } from '../lib/thread-priority.ts';

/** One hash to compute. */
export type HashJob = {
  readonly password: string;
  readonly salt: Uint8Array;
  readonly keyLength: number;
  readonly options: { N: number; r: number; p: number; maxmem: number };
};

/** The hash, or why scrypt refused (parameters out of range). */
export type HashReply = { readonly hash: Uint8Array } | { readonly error: string };

const port = parentPort;
if (port) {
  yieldToRequestThread();
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
