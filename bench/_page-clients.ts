/**
 * Clients requesting pages in a loop, in a worker thread of their own: a probe in the bench's
 * main thread then measures the server, not the load clients' own event loop.
 *
 *   const statuses = await pageClients({ url, pages, clients: 8, ms: 15_000 });
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

type Load = {
  readonly url: string;
  readonly pages: readonly string[];
  readonly clients: number;
  readonly ms: number;
};

/** Runs the load in a worker; resolves with how many answers had each status. */
export function pageClients(load: Load): Promise<Map<number, number>> {
  const worker = new Worker(new URL(import.meta.url), { workerData: load });
  return new Promise((resolve, reject) => {
    worker.once('message', (counts: [number, number][]) => resolve(new Map(counts)));
    worker.once('error', reject);
  });
}

async function run({ url, pages, clients, ms }: Load): Promise<[number, number][]> {
  const statuses = new Map<number, number>();
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = client; Date.now() < end; i++) {
        const response = await fetch(`${url}${pages[i % pages.length]}`);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return [...statuses];
}

if (!isMainThread && parentPort) {
  parentPort.postMessage(await run(workerData as Load));
  // Ends the thread and with it the keep-alive connections, which would hold a draining server.
  process.exit(0);
}
