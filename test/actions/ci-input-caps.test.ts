/**
 * What runners and pushes send is bounded: each input that once held the event loop, replayed
 * against a real server while a probe keeps calling `GET /api/v1/version`. An anonymous 16 MiB
 * protobuf is refused before its body is read; a gzip bomb stops at the decoded cap; an
 * oversized UpdateLog from a real runner is refused and stores nothing; a 10,000-combination
 * matrix and a push past the jobs a push may start record failed runs that start no job.
 */
import { gzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { UpdateLogRequestSchema } from '../../src/gen/runner/v1/messages_pb.js';
import type { GitClient } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { ciProject, headOnly, matrixWorkflow, postActions, whileProbing } from './caps-support.ts';
import { ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
useWorld({ people: ['owner'] }, (world) => {
  ({ kiln, git } = world);
  ({ user: owner, token } = world.people.owner);
});

const UPDATE_LOG = 'runner.v1.RunnerService/UpdateLog';

/** An UpdateLog body of `rows` empty rows (field 3, length 0: two bytes each) for task 1. */
function emptyRows(rows: number): Buffer {
  const body = Buffer.alloc(2 + rows * 2);
  body[0] = 0x08; // task_id = 1
  body[1] = 0x01;
  for (let at = 2; at < body.length; at += 2) body[at] = 0x1a;
  return body;
}

describe('/api/actions', () => {
  it('answers an anonymous 16 MiB protobuf unauthenticated without reading it', async () => {
    await whileProbing(kiln, async () => {
      // The head alone, declaring 16 MiB that never come: the answer cannot wait for them.
      const head = await headOnly(kiln, UPDATE_LOG, 16 * 1024 * 1024);
      expect(head).toMatch(/^HTTP\/1\.1 401 /);
      expect(head).toContain('"code":"unauthenticated","message":"unregistered runner"');
      // The connection is closed with the answer, so the rest of the body is never read.
      expect(head.toLowerCase()).toContain('connection: close');
      const whole = await postActions(kiln, UPDATE_LOG, emptyRows(8 * 1024 * 1024));
      expect(whole).toEqual({
        status: 401,
        body: { code: 'unauthenticated', message: 'unregistered runner' },
      });
      // A body no larger than a runner may send is let drain, so its answer always arrives.
      for (let attempt = 0; attempt < 10; attempt++) {
        const sized = await postActions(kiln, UPDATE_LOG, emptyRows(1536 * 1024));
        expect(sized.status).toBe(401);
      }
      // Register is read before credentials (its token is inside), within a tiny cap.
      const register = await postActions(
        kiln,
        'runner.v1.RunnerService/Register',
        Buffer.alloc(16 * 1024 * 1024),
      );
      expect(register.status).toBe(429);
      expect(register.body.code).toBe('resource_exhausted');
    });
  });

  it('stops a gzip bomb at the decoded cap, from a runner or from anyone at Ping', async () => {
    const runner = await ReplayRunner.register(kiln, { labels: ['bomb-box'] });
    const bomb = gzipSync(emptyRows(12 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(48 * 1024);
    await whileProbing(kiln, async () => {
      const gzip = { 'content-encoding': 'gzip' };
      const logged = await postActions(kiln, UPDATE_LOG, bomb, { ...gzip, ...runner.headers });
      expect(logged).toEqual({
        status: 429,
        body: { code: 'resource_exhausted', message: 'request body larger than 2097152 bytes' },
      });
      const anonymous = await postActions(kiln, UPDATE_LOG, bomb, gzip);
      expect(anonymous.status).toBe(401);
      const ping = await postActions(kiln, 'ping.v1.PingService/Ping', bomb, gzip);
      expect(ping.body.code).toBe('resource_exhausted');
    });
  });

  it('refuses an oversized UpdateLog from a real runner and stores nothing of it', async () => {
    const project = await ciProject(kiln, git, owner, token);
    await project.push({ '.gitea/workflows/ci.yml': matrixWorkflow('oversize-box', 1) });
    const runner = await ReplayRunner.register(kiln, { labels: ['oversize-box'] });
    const task = await runner.next();
    await whileProbing(kiln, async () => {
      const body = Buffer.from(
        toBinary(
          UpdateLogRequestSchema,
          create(UpdateLogRequestSchema, {
            taskId: task.id,
            rows: Array.from({ length: 100 }, () => ({ content: 'x'.repeat(30_000) })),
          }),
        ),
      );
      const answer = await postActions(kiln, UPDATE_LOG, body, runner.headers);
      expect(answer.status).toBe(429);
      expect(answer.body.code).toBe('resource_exhausted');
    });
    expect(await kiln.app.services.ciLogs.rowCount(Number(task.id))).toBe(0);
    // Rows past the 5,000 a call stores are left unacknowledged, for the runner to send again.
    const many = await runner.client.updateLog(
      {
        taskId: task.id,
        rows: Array.from({ length: 6000 }, (_, at) => ({ content: String(at) })),
        noMore: true,
      },
      { headers: runner.headers },
    );
    expect(many.ackIndex).toBe(5000n);
    expect(await kiln.app.services.ciLogs.rowCount(Number(task.id))).toBe(5000);
  });
  it('stores 1,000 outputs of a task and acknowledges the rest so they are not resent', async () => {
    const project = await ciProject(kiln, git, owner, token);
    await project.push({ '.gitea/workflows/ci.yml': matrixWorkflow('outputs-box', 1) });
    const runner = await ReplayRunner.register(kiln, { labels: ['outputs-box'] });
    const task = await runner.next();
    const outputs = Object.fromEntries(
      Array.from({ length: 5000 }, (_, at) => [`out${at}`, String(at)]),
    );
    const answer = await whileProbing(kiln, () =>
      runner.client.updateTask({ state: { id: task.id }, outputs }, { headers: runner.headers }),
    );
    expect(new Set(answer.sentOutputs)).toEqual(new Set(Object.keys(outputs)));
    const stored = await kiln.app.database.db
      .selectFrom('ci_task_outputs')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('task_id', '=', Number(task.id))
      .executeTakeFirstOrThrow();
    expect(Number(stored.count)).toBe(1000);
  });
});

describe('matrices and pushes', () => {
  it('records a 10,000-combination matrix as a failed run that starts no job', async () => {
    const project = await ciProject(kiln, git, owner, token);
    const values = Array.from({ length: 100 }, (_, at) => at).join(', ');
    const workflow = `on: push\njobs:\n  huge:\n    runs-on: nobody\n    strategy:\n      matrix:\n        a: [${values}]\n        b: [${values}]\n    steps: [{run: x}]\n`;
    const [run] = await whileProbing(kiln, async () => {
      await project.push({ '.gitea/workflows/huge.yml': workflow });
      return project.runsSettle(1);
    });
    expect(run?.status).toBe('FAILURE');
    expect(run?.error).toBe(
      '.gitea/workflows/huge.yml: job "huge": the matrix makes 10000 jobs, more than the 256 a matrix may make',
    );
    const tasks = await kiln.app.database.db
      .selectFrom('ci_tasks')
      .select('id')
      .where('run_id', '=', run?.id ?? '')
      .execute();
    expect(tasks).toEqual([]);
  });

  it('starts at most 1,024 jobs for one push; the run past it fails naming the limit', async () => {
    const project = await ciProject(kiln, git, owner, token);
    const files = Object.fromEntries(
      ['a', 'b', 'c', 'd', 'e'].map((name) => [
        `.gitea/workflows/${name}.yml`,
        matrixWorkflow('nobody', 256),
      ]),
    );
    const runs = await whileProbing(kiln, async () => {
      await project.push(files);
      return project.runsSettle(5);
    });
    const failed = runs.filter((run) => run.status === 'FAILURE');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.error).toMatch(
      /^\.gitea\/workflows\/e\.yml: the event would start more than the 1024 jobs one push may start/,
    );
    const jobs = await kiln.app.database.db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('workflow_runs.repo_id', '=', project.repoId)
      .executeTakeFirstOrThrow();
    expect(Number(jobs.count)).toBe(1024);
  });
});
