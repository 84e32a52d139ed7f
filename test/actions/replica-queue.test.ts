/**
 * Two Kiln processes' worth of state (two apps, two HTTP servers, two connection pools) on one
 * database, with runners polling both at once: every job is handed out exactly once. On
 * PostgreSQL (with-postgres.sh) this is the replicas deployment; on SQLite, two pools on one file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { createRun } from '../../src/domain/ci/workflow-run.store.ts';
import { buildServer } from '../../src/http/server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { insertRepository } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let second: { app: App; url: string; close(): Promise<void> };

beforeAll(async () => {
  kiln = await startTestServer();
  const app = await createApp(kiln.app.config);
  const server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server did not bind');
  second = {
    app,
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      await server.close();
      await app.close();
    },
  };
});
afterAll(async () => {
  await second?.close();
  await kiln?.close();
});

describe('one queue, two replicas', () => {
  it('hands each of 24 jobs to exactly one of six runners polling both replicas', async () => {
    const { user } = await kiln.make.user();
    const repo = await insertRepository(kiln, user);
    const replicas = [kiln, { ...kiln, url: second.url }];
    const runners = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ReplayRunner.register(replicas[i % 2] as TestServer, { labels: ['queue-box'] }),
      ),
    );
    await createRun(
      kiln.app.database.db,
      {
        repoId: repo.id,
        workflowName: 'Q',
        workflowFile: 'q.yml',
        event: 'push',
        ref: 'refs/heads/main',
        sha: 'b'.repeat(40),
        triggeredBy: null,
      },
      Array.from({ length: 24 }, (_, i) => ({
        name: `job ${i}`,
        jobKey: `job${i}`,
        runsOn: ['queue-box'],
        payload: `jobs: {job${i}: {runs-on: queue-box}}`,
      })),
      ['global', `owner:${user.id}`, `repo:${repo.id}`],
    );
    const handed: bigint[] = [];
    await Promise.all(
      runners.map(async (runner) => {
        for (let empty = 0; empty < 5; ) {
          const task = await runner.poll();
          if (task === undefined) {
            empty++;
            await new Promise((resolve) => setTimeout(resolve, 50));
            continue;
          }
          handed.push(task.id);
        }
      }),
    );
    expect(handed).toHaveLength(24);
    expect(new Set(handed).size).toBe(24);
  });

  it('never starts two jobs of one concurrency group, however many are pending', async () => {
    const { user } = await kiln.make.user();
    const repo = await insertRepository(kiln, user);
    const replicas = [kiln, { ...kiln, url: second.url }];
    const runners = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ReplayRunner.register(replicas[i % 2] as TestServer, { labels: ['group-box'] }),
      ),
    );
    const { run } = await createRun(
      kiln.app.database.db,
      {
        repoId: repo.id,
        workflowName: 'G',
        workflowFile: 'g.yml',
        event: 'push',
        ref: 'refs/heads/main',
        sha: 'c'.repeat(40),
        triggeredBy: null,
      },
      Array.from({ length: 8 }, (_, i) => ({
        name: `deploy ${i}`,
        jobKey: `deploy${i}`,
        runsOn: ['group-box'],
        payload: `jobs: {deploy${i}: {runs-on: group-box}}`,
        concurrency: { group: 'deploy', cancelInProgress: false },
      })),
    );
    // What two replicas admitting at the same moment could leave behind: every job of the
    // group pending at once. The claim itself must still let only one of them run.
    await kiln.app.database.db
      .updateTable('ci_tasks')
      .set({ status: 'pending' })
      .where('run_id', '=', run.id)
      .execute();
    const handed = await Promise.all(runners.map((runner) => runner.poll()));
    expect(handed.filter((task) => task !== undefined)).toHaveLength(1);
  });
});
