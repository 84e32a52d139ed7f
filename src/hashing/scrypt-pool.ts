import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { HashJob, HashReply } from './scrypt-worker.ts';

/**
 * Hashes that may run at once: one core is always left to the event loop, and waiting hashes
 * queue here (docs/performance.md). Each runs on a thread of its own at a lower priority
 * (scrypt-worker.ts) rather than on libuv's pool, whose threads compete with the event loop
 * on equal terms: on a machine whose cores other work keeps busy, the pages then waited behind
 * a flood of wrong passwords.
 */
const HASH_SLOTS = Math.max(1, availableParallelism() - 1);
const idleWorkers: Worker[] = [];
/** When each idle thread stops if no hash comes first. */
const idleTimers = new WeakMap<Worker, NodeJS.Timeout>();
/**
 * How long a hashing thread waits for work before it stops: each holds a V8 heap of its own,
 * which a server nobody has signed in to for a while gives back. The next hash starts a thread.
 */
let idleMs = 60_000;
let workers = 0;
const waiting: Array<(worker: Worker) => void> = [];
const stopped = new WeakSet<Worker>();
/** Threads stopped for idleness (rather than failing). */
const retired = new WeakSet<Worker>();

function startWorker(): Worker {
  const worker = new Worker(new URL('./scrypt-worker.ts', import.meta.url));
  // An idle hashing thread never keeps the process alive; a busy one does (see hashOn).
  worker.unref();
  // A thread that fails stops; its 'exit' fails the hash in flight (hashOn) and the next
  // hash gets a new thread. Unheard, the 'error' event would end the whole process.
  worker.on('error', () => {});
  worker.once('exit', () => {
    stopped.add(worker);
    workers -= 1;
    const at = idleWorkers.indexOf(worker);
    if (at >= 0) idleWorkers.splice(at, 1);
    // A thread stopped for idleness frees its slot for a hash that queued meanwhile.
    const next = retired.has(worker) ? waiting.shift() : undefined;
    if (next) next(startWorker());
  });
  workers += 1;
  return worker;
}

/** Hashing threads running now, busy or idle (tests and diagnostics). */
export function hashThreads(): number {
  return workers;
}

/** Sets how long an idle hashing thread lives, the ones idle now included (tests). */
export function setHashThreadIdleMs(ms: number): void {
  idleMs = ms;
  for (const worker of idleWorkers) stopWhenIdle(worker);
}

async function takeWorker(): Promise<Worker> {
  const idle = idleWorkers.pop();
  if (idle) {
    clearTimeout(idleTimers.get(idle));
    return idle;
  }
  if (workers < HASH_SLOTS) return startWorker();
  return new Promise((resolve) => waiting.push(resolve));
}

function releaseWorker(worker: Worker): void {
  const next = waiting.shift();
  if (next) {
    next(worker);
    return;
  }
  idleWorkers.push(worker);
  stopWhenIdle(worker);
}

/** Stops an idle thread after `idleMs` unless a hash takes it first. */
function stopWhenIdle(worker: Worker): void {
  clearTimeout(idleTimers.get(worker));
  const timer = setTimeout(() => {
    const at = idleWorkers.indexOf(worker);
    if (at < 0) return;
    idleWorkers.splice(at, 1);
    // Its 'exit' then counts it out (startWorker).
    retired.add(worker);
    void worker.terminate();
  }, idleMs);
  timer.unref();
  idleTimers.set(worker, timer);
}

function hashOn(worker: Worker, job: HashJob): Promise<Buffer> {
  worker.ref();
  return new Promise<Buffer>((resolve, reject) => {
    const onExit = () => reject(new Error('the password hashing thread stopped'));
    worker.once('exit', onExit);
    worker.once('message', (reply: HashReply) => {
      worker.off('exit', onExit);
      worker.unref();
      if ('error' in reply) reject(new Error(reply.error));
      else resolve(Buffer.from(reply.hash));
    });
    worker.postMessage(job);
  });
}

/**
 * scrypt on a hashing thread of its own: at most one fewer at once than the machine has cores,
 * the rest queued, each at a lower priority than the event loop.
 */
export async function scryptOffThread(
  password: string,
  salt: Buffer,
  keyLength: number,
  options: HashJob['options'],
): Promise<Buffer> {
  const worker = await takeWorker();
  try {
    return await hashOn(worker, { password, salt, keyLength, options });
  } finally {
    // A thread that stopped (it should not) is replaced, so that the queue keeps moving.
    releaseWorker(stopped.has(worker) ? startWorker() : worker);
  }
}
