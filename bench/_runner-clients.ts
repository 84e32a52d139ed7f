/**
 * Hostile runner-protocol clients in a worker thread of their own, like the page clients
 * (_page-clients.ts): the probe in the bench's main thread then measures the server, not the
 * time the load's own bodies took to build and send on the probe's event loop.
 *
 * Two loads:
 * - `bodies`: the same prepared bodies POSTed back to back to runner procedures in turn
 *   (oversize, compressed), counting answers by status (0: the socket failed first);
 * - `log-flood`: a registered runner sending UpdateLog batches of `rows` rows of `rowBytes`
 *   bytes, each continuing where the last was acknowledged, counting the rows accepted.
 *
 *   const result = await runnerClients({ url, ms, load: { kind: 'bodies', … } });
 */
import { Agent } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  LogRowSchema,
  UpdateLogRequestSchema,
  UpdateLogResponseSchema,
} from '../src/gen/runner/v1/messages_pb.js';
import { postProto } from './_kiln.ts';

type Bodies = {
  readonly kind: 'bodies';
  readonly procedures: readonly string[];
  readonly body: Uint8Array;
  readonly concurrency: number;
  readonly headers: Record<string, string>;
};

type LogFlood = {
  readonly kind: 'log-flood';
  readonly taskId: bigint;
  readonly from: bigint;
  readonly rows: number;
  readonly rowBytes: number;
  readonly headers: Record<string, string>;
};

type Job = { readonly url: string; readonly ms: number; readonly load: Bodies | LogFlood };

/** What a load did: answers by status, and for a flood the index it reached. */
export type ClientsResult = { statuses: [number, number][]; index: bigint };

/** Runs the load in a worker thread; resolves when its time is up. */
export function runnerClients(job: Job): Promise<ClientsResult> {
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

/** POSTs `body` to a procedure of the runner service. */
function post(
  url: string,
  procedure: string,
  body: Uint8Array,
  headers: Record<string, string>,
  agent: Agent | undefined,
) {
  return postProto(url, `runner.v1.RunnerService/${procedure}`, body, headers, agent);
}

async function run({ url, ms, load }: Job): Promise<ClientsResult> {
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const end = Date.now() + ms;
  if (load.kind === 'bodies') {
    let n = 0;
    await Promise.all(
      Array.from({ length: load.concurrency }, async () => {
        while (Date.now() < end) {
          const procedure = load.procedures[n++ % load.procedures.length] as string;
          count((await post(url, procedure, load.body, load.headers, undefined)).status);
        }
      }),
    );
    return { statuses: [...statuses], index: 0n };
  }
  // The rows are encoded once; each batch is its task id and index followed by them (protobuf
  // concatenation is a merge), so building a batch costs this thread next to nothing.
  const rows = toBinary(
    UpdateLogRequestSchema,
    create(UpdateLogRequestSchema, {
      rows: Array.from({ length: load.rows }, () =>
        create(LogRowSchema, {
          time: timestampFromDate(new Date()),
          content: 'x'.repeat(load.rowBytes),
        }),
      ),
    }),
  );
  const agent = new Agent({ keepAlive: true });
  let index = load.from;
  while (Date.now() < end) {
    const head = toBinary(
      UpdateLogRequestSchema,
      create(UpdateLogRequestSchema, { taskId: load.taskId, index }),
    );
    const answer = await post(url, 'UpdateLog', Buffer.concat([head, rows]), load.headers, agent);
    count(answer.status);
    if (answer.status === 200) index = fromBinary(UpdateLogResponseSchema, answer.body).ackIndex;
  }
  agent.destroy();
  return { statuses: [...statuses], index };
}

if (!isMainThread && parentPort) {
  parentPort.postMessage(await run(workerData as Job));
  process.exit(0);
}
