/**
 * A second Kiln replica for the zombie-sweep race: its own database connection (its own SQLite
 * handle, or its own PostgreSQL pool) in its own thread, sweeping when told to.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../src/db/database.ts';
import { CiStores } from '../../src/domain/ci/ci-stores.ts';
import { CiTaskService } from '../../src/domain/ci/ci-task.service.ts';

const { databaseUrl, dataDir, rounds } = workerData as {
  databaseUrl: string | undefined;
  dataDir: string;
  rounds: number;
};
const port = parentPort;
if (port === null) throw new Error('run me as a worker');
const database = await openDatabase({ databaseUrl, dataDir });
const tasks = new CiTaskService(new CiStores(database.db), { taskTimeoutMs: 60_000 });

port.once('message', async () => {
  try {
    let failed = 0;
    for (let round = 0; round < rounds; round++) failed += await tasks.sweepZombies();
    port.postMessage({ failed });
  } catch (error) {
    port.postMessage({ error: String(error) });
  } finally {
    await database.close();
  }
});
port.postMessage('ready');
