/**
 * Shared by benches that compare Kiln against git (not a bench itself: bench/run.ts skips
 * `_*.ts`): runs git commands from a worker thread at the niceness Kiln gives its own git
 * (src/git/spawner-process.ts), and times each there, from spawn to exit. On Linux a thread has
 * its own niceness and a child inherits its thread's, so the baseline's git gets the share of a
 * busy machine that Kiln's git gets, while the bench's main thread, where Kiln answers, stays at
 * the server's priority as in production.
 */
import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';

/** Kiln's git niceness (spawner-process.ts's GIT_NICENESS). */
const GIT_NICENESS = 5;

type Request = { id: number; args: readonly string[]; env: Record<string, string | undefined> };
type Answer = { id: number; ms: number; error?: string };

if (!isMainThread && parentPort) {
  const port = parentPort;
  try {
    setPriority(GIT_NICENESS);
  } catch {
    // Not permitted: the baseline then runs at the bench's priority, as Kiln's git would.
  }
  port.on('message', (request: Request) => {
    const started = performance.now();
    execFile('git', request.args, { env: request.env, maxBuffer: 64 << 20 }, (error) => {
      const answer: Answer = { id: request.id, ms: performance.now() - started };
      port.postMessage(error ? { ...answer, error: error.message } : answer);
    });
  });
}

/** A thread that runs git at Kiln's git niceness; `time` resolves to the command's wall ms. */
export function niceGit(env: Record<string, string | undefined>) {
  const worker = new Worker(new URL(import.meta.url));
  const waiting = new Map<number, { resolve(ms: number): void; reject(error: Error): void }>();
  let next = 0;
  worker.on('message', (answer: Answer) => {
    const waiter = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (answer.error) waiter?.reject(new Error(answer.error));
    else waiter?.resolve(answer.ms);
  });
  return {
    time(args: readonly string[]): Promise<number> {
      const id = next++;
      return new Promise<number>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, args, env } satisfies Request);
      });
    },
    close: () => worker.terminate(),
  };
}
