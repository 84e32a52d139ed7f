/**
 * Clients requesting pages in a loop, in a worker thread of their own: a probe in the bench's
 * main thread then measures the server, not the load clients' own event loop.
 *
 * Each client is one keep-alive connection that reads every answer to its end and keeps none of
 * it, as a browser's connection to a server on another machine costs that server nothing more.
 * Clients that kept each page (`fetch` and `arrayBuffer`) spent so much of the two cores here
 * allocating and collecting half-megabyte pages that the server's request thread waited for a
 * core over a quarter of the time (a tenth with these clients): the figures measured the clients.
 *
 *   const statuses = await pageClients({ url, pages, clients: 8, ms: 15_000 });
 */
import { Agent, get } from 'node:http';
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

/** The status of the page at `url`, once its body has been read to the end. */
function statusOf(url: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
      response.resume();
    }).on('error', reject);
  });
}

async function run({ url, pages, clients, ms }: Load): Promise<[number, number][]> {
  const statuses = new Map<number, number>();
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = client; Date.now() < end; i++) {
        const status = await statusOf(`${url}${pages[i % pages.length]}`, agent);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
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
