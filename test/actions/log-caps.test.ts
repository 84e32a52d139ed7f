/**
 * Log uploads are capped per task and per repository. Past a cap, the task's log ends with one
 * row saying it was truncated, and every row sent afterwards is acknowledged and dropped, so the
 * runner neither resends nor gives up its report. Generated sequences of UpdateLog batches, sent
 * as a runner sends them (from its acknowledged index, resending what was not acknowledged),
 * check that the stored log never passes the caps and that `ack_index` never goes back.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import type { Task } from '../../src/gen/runner/v1/messages_pb.js';
import type { GitClient } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { startWorld, useWorld } from '../support/world.ts';
import { ciProject, matrixWorkflow, whileProbing } from './caps-support.ts';
import { ReplayRunner } from './replay-runner.ts';

const TASK_BYTES = 64 * 1024;
const TASK_ROWS = 1000;

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
let runner: ReplayRunner;
useWorld(
  {
    people: ['owner'],
    env: {
      SERVICE_CI_LOG_MAX_BYTES_PER_TASK: String(TASK_BYTES),
      SERVICE_CI_LOG_MAX_ROWS_PER_TASK: String(TASK_ROWS),
    },
  },
  async (world) => {
    ({ kiln, git } = world);
    ({ user: owner, token } = world.people.owner);
    const project = await ciProject(kiln, git, owner, token);
    await project.push({ '.gitea/workflows/ci.yml': matrixWorkflow('log-box', 40) });
    await project.runsSettle(1);
    runner = await ReplayRunner.register(kiln, { labels: ['log-box'] });
  },
);

/** Sends `contents` from `index` as the runner does; answers `ack_index`. */
async function upload(
  as: ReplayRunner,
  task: Task,
  index: number,
  contents: readonly string[],
  noMore = false,
): Promise<number> {
  const time = timestampFromDate(new Date());
  const answer = await as.client.updateLog(
    {
      taskId: task.id,
      index: BigInt(index),
      rows: contents.map((content) => ({ time, content })),
      noMore,
    },
    { headers: as.headers },
  );
  return Number(answer.ackIndex);
}

/** The stored rows' contents (the time stamp and its space taken off). */
async function stored(server: TestServer, task: Task): Promise<string[]> {
  const lines = await server.app.services.ciLogs.readRows(Number(task.id), 0, 1_000_000);
  return lines.map((line) => line.slice(line.indexOf(' ') + 1));
}

/**
 * A runner's side of one job: rows are produced in batches and sent from the acknowledged index
 * (`send` of the pending rows a call), then flushed with `no_more` until all are acknowledged.
 * Checks the caps and the acknowledgements after every call; answers every row produced.
 */
async function runJob(
  task: Task,
  batches: readonly { rows: number; size: number; send: number }[],
): Promise<string[]> {
  const produced: string[] = [];
  let acked = 0;
  const check = async (ack: number, sentEnd: number) => {
    expect(ack).toBeGreaterThanOrEqual(acked);
    expect(ack).toBeLessThanOrEqual(sentEnd);
    const { ciLogs } = kiln.app.services;
    expect(await ciLogs.byteCount(Number(task.id))).toBeLessThanOrEqual(TASK_BYTES);
    expect(await ciLogs.rowCount(Number(task.id))).toBeLessThanOrEqual(TASK_ROWS);
    acked = ack;
  };
  for (const batch of batches) {
    for (let at = 0; at < batch.rows; at++) {
      produced.push(`${produced.length}:${'x'.repeat(batch.size)}`);
    }
    const sending = produced.slice(acked, acked + batch.send);
    await check(await upload(runner, task, acked, sending), acked + sending.length);
  }
  for (let calls = 0; calls < 20 && acked < produced.length; calls++) {
    const sending = produced.slice(acked, acked + 500);
    const last = acked + sending.length === produced.length;
    await check(await upload(runner, task, acked, sending, last), acked + sending.length);
  }
  expect(acked).toBe(produced.length);
  return produced;
}

describe('log caps of a task', () => {
  it('keep every stored log within the caps and every acknowledgement consistent (generated)', async () => {
    const batch = fc.record({
      rows: fc.integer({ min: 0, max: 300 }),
      size: fc.integer({ min: 0, max: 700 }),
      send: fc.integer({ min: 1, max: 400 }),
    });
    const seen = { truncated: 0, whole: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { maxLength: 8 }), async (batches) => {
        const task = await runner.next();
        const produced = await runJob(task, batches);
        const log = await stored(kiln, task);
        const marker = log.at(-1)?.startsWith('Log truncated at ') === true;
        const kept = marker ? log.slice(0, -1) : log;
        // What is kept is what was sent, in order, from the start; the rest only if nothing was cut.
        expect(kept).toEqual(produced.slice(0, kept.length));
        seen[marker ? 'truncated' : 'whole']++;
        if (!marker) expect(kept).toHaveLength(produced.length);
        else
          expect(log.at(-1)).toMatch(
            /^Log truncated at \d+ bytes: a task's log may hold 65536 bytes and 1000 lines/,
          );
      }),
      { numRuns: 20 },
    );
    // Both sides of the cap were generated.
    expect(seen.truncated).toBeGreaterThan(0);
    expect(seen.whole).toBeGreaterThan(0);
  });

  it('answers a runner flooding past the cap so that it stops resending', async () => {
    const task = await runner.next();
    const line = 'y'.repeat(1000);
    let acked = 0;
    await whileProbing(kiln, async () => {
      for (let call = 0; call < 200; call++) {
        const ack = await upload(runner, task, acked, Array(100).fill(line));
        expect(ack).toBe(acked + 100);
        acked = ack;
      }
      expect(await upload(runner, task, acked, [''], true)).toBe(acked + 1);
    });
    const log = await stored(kiln, task);
    expect(log.length).toBeLessThan(70);
    expect(log.at(-1)).toMatch(/^Log truncated at 6\d{4} bytes/);
    expect(await kiln.app.services.ciLogs.byteCount(Number(task.id))).toBeLessThanOrEqual(
      TASK_BYTES,
    );
    // The final report, sent again after a lost answer, is acknowledged again.
    expect(await upload(runner, task, acked, [''], true)).toBe(acked + 1);
    const row = await kiln.app.database.db
      .selectFrom('ci_tasks')
      .select(['log_sealed', 'log_truncated'])
      .where('id', '=', Number(task.id))
      .executeTakeFirstOrThrow();
    expect(Boolean(row.log_sealed) && Boolean(row.log_truncated)).toBe(true);
  });
});

describe('log caps of a repository', () => {
  it('stores no new rows once the repository’s logs reach its cap, and deletes none', async () => {
    const world = await startWorld({
      people: ['owner'],
      env: { SERVICE_CI_LOG_MAX_BYTES_PER_REPO: String(1024 * 1024) },
    });
    try {
      const { kiln: server, git: client } = world;
      const person = world.people.owner;
      const project = await ciProject(server, client, person.user, person.token);
      await project.push({ '.gitea/workflows/ci.yml': matrixWorkflow('repo-box', 2) });
      await project.runsSettle(1);
      const own = await ReplayRunner.register(server, { labels: ['repo-box'] });
      const first = await own.next();
      const line = 'z'.repeat(10_000);
      let acked = 0;
      // 1.5 MB in calls of 100 KB: the repository is found full at the first megabyte.
      for (let call = 0; call < 15; call++) {
        acked = await upload(own, first, acked, Array(10).fill(line));
      }
      expect(acked).toBe(150);
      const firstLog = await stored(server, first);
      expect(firstLog.length).toBeGreaterThan(100);
      expect(firstLog.length).toBeLessThan(150);
      expect(firstLog.at(-1)).toMatch(/this repository's stored logs reached 1048576 bytes/);
      const second = await own.next();
      expect(await upload(own, second, 0, ['hello', 'world'])).toBe(2);
      const secondLog = await stored(server, second);
      expect(secondLog).toHaveLength(1);
      expect(secondLog[0]).toMatch(/^Log truncated at 0 bytes: this repository's stored logs/);
      // The first task's log is still whole.
      expect(await stored(server, first)).toEqual(firstLog);
    } finally {
      await world.close();
    }
  });
});
