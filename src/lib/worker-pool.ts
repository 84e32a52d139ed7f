import { Worker } from 'node:worker_threads';

/** How a job ended: its output, or why there is none. */
export type PoolOutcome<Output> =
  | { readonly kind: 'done'; readonly output: Output }
  /** It ran past the time budget; its worker was terminated. */
  | { readonly kind: 'timeout' }
  /** The worker threw, ran out of memory or died; the job may fail the same way again. */
  | { readonly kind: 'failed'; readonly reason: string }
  /** The pool was closed before the job finished. */
  | { readonly kind: 'closed' };

export type WorkerPoolOptions = {
  /** The worker's module. It posts `{ ready: true }` once loaded, then answers each job. */
  readonly file: URL;
  /** Most workers alive at once; they are started on demand. */
  readonly size: number;
  /** Longest a job may run on a worker, from the moment the worker takes it. */
  readonly timeoutMs: number;
  /** Most jobs waiting for a worker; `run` throws `PoolFull` beyond it. */
  readonly queueLimit: number;
  /** Heap ceiling of each worker: a job that needs more kills its worker, not the process. */
  readonly maxHeapMb?: number;
  /** A worker idle this long is stopped, so a quiet server gives its memory back. */
  readonly idleMs?: number;
};

/** Every worker is busy and the queue is full: the caller should come back later. */
export class PoolFull extends Error {
  constructor() {
    super('every worker of the pool is busy');
    this.name = 'PoolFull';
  }
}

type Job<Input, Output> = {
  readonly input: Input;
  readonly resolve: (outcome: PoolOutcome<Output>) => void;
};

type Slot<Input, Output> = {
  readonly worker: Worker;
  ready: boolean;
  job: Job<Input, Output> | undefined;
  timer: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
};

type Reply<Output> = { ready: true } | { ok: true; output: Output } | { ok: false; error: string };

/**
 * A fixed number of worker threads running one job each, with a bounded queue and a time budget
 * per job. A worker that overruns the budget is terminated (V8 stops it even inside a
 * backtracking regular expression) and a fresh one takes its place for the next job, so no input
 * can hold a worker, and through it the pool, for longer than the budget.
 *
 * Workers are `unref`ed: an idle or busy pool never keeps the process alive. `close` terminates
 * them all and settles every pending job as `closed`.
 */
export class WorkerPool<Input, Output> {
  readonly #options: WorkerPoolOptions;
  readonly #slots = new Set<Slot<Input, Output>>();
  readonly #queue: Job<Input, Output>[] = [];
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
  }

  /** Jobs waiting for a worker (not counting the ones running). */
  get queued(): number {
    return this.#queue.length;
  }

  /** Workers alive, loading or not. */
  get workers(): number {
    return this.#slots.size;
  }

  /**
   * Runs `input` on a worker. Never rejects for what the job does (see `PoolOutcome`); throws
   * `PoolFull` at once when the queue is full.
   */
  run(input: Input): Promise<PoolOutcome<Output>> {
    if (this.#closed) return Promise.resolve({ kind: 'closed' });
    if (this.#queue.length >= this.#options.queueLimit) throw new PoolFull();
    return new Promise((resolve) => {
      this.#queue.push({ input, resolve });
      this.#dispatch();
    });
  }

  /** Terminates every worker; jobs still waiting or running end as `closed`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.resolve({ kind: 'closed' });
    const slots = [...this.#slots];
    this.#slots.clear();
    for (const slot of slots) {
      clearTimeout(slot.idle);
      this.#finish(slot, { kind: 'closed' });
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const idle = [...this.#slots].find((slot) => slot.ready && slot.job === undefined);
      const job = idle && this.#queue.shift();
      if (idle && job) {
        this.#start(idle, job);
        continue;
      }
      // Workers still loading take the next jobs once ready; start more only for the rest.
      const starting = [...this.#slots].filter((slot) => !slot.ready).length;
      if (starting >= this.#queue.length || this.#slots.size >= this.#options.size) return;
      this.#spawn();
    }
  }

  #start(slot: Slot<Input, Output>, job: Job<Input, Output>): void {
    clearTimeout(slot.idle);
    slot.job = job;
    slot.timer = setTimeout(
      () => this.#replace(slot, { kind: 'timeout' }),
      this.#options.timeoutMs,
    );
    slot.timer.unref();
    slot.worker.postMessage(job.input);
  }

  #spawn(): void {
    const { maxHeapMb } = this.#options;
    const worker = new Worker(this.#options.file, {
      ...(maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } } : {}),
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const slot: Slot<Input, Output> = {
      worker,
      ready: false,
      job: undefined,
      timer: undefined,
      idle: undefined,
    };
    this.#slots.add(slot);
    worker.on('message', (reply: Reply<Output>) => {
      if ('ready' in reply) {
        slot.ready = true;
      } else {
        this.#finish(
          slot,
          reply.ok
            ? { kind: 'done', output: reply.output }
            : { kind: 'failed', reason: reply.error },
        );
      }
      this.#dispatch();
      if (slot.job === undefined) this.#idle(slot);
    });
    // An uncaught error, a heap overrun or an exit: this worker is gone, its job failed.
    worker.on('error', (error) => this.#replace(slot, { kind: 'failed', reason: error.message }));
    worker.on('exit', () => this.#replace(slot, { kind: 'failed', reason: 'worker exited' }));
  }

  #idle(slot: Slot<Input, Output>): void {
    const { idleMs } = this.#options;
    if (idleMs === undefined) return;
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      if (slot.job === undefined && this.#slots.delete(slot)) void slot.worker.terminate();
    }, idleMs);
    slot.idle.unref();
  }

  #finish(slot: Slot<Input, Output>, outcome: PoolOutcome<Output>): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    const job = slot.job;
    slot.job = undefined;
    job?.resolve(outcome);
  }

  /** Ends the slot's job with `outcome` and drops its worker; the next dispatch starts another. */
  #replace(slot: Slot<Input, Output>, outcome: PoolOutcome<Output>): void {
    if (!this.#slots.delete(slot)) return;
    clearTimeout(slot.idle);
    this.#finish(slot, outcome);
    // A worker that cannot even load fails the job that was waiting for it, so a broken
    // installation answers every job (as failed) instead of starting workers for ever.
    if (!slot.ready && outcome.kind === 'failed') this.#queue.shift()?.resolve(outcome);
    void slot.worker.terminate();
    if (!this.#closed) this.#dispatch();
  }
}
