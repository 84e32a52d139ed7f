/**
 * Push to first task: how long after a `git push` starts a runner that is already waiting gets
 * the job the push triggered, against how long the push itself takes; target ≤ 2 ×.
 *
 * A real Kiln (SQLite unless SERVICE_DATABASE_URL names PostgreSQL) on 127.0.0.1 and a repository
 * whose workflow runs on every push. Each round commits one changed file in a local clone, starts
 * `git push` over smart HTTP with the real git client and, at the same moment, a runner that calls
 * FetchTask (binary Connect over HTTP/1.1, sending back the `tasks_version` it was given, as the Go
 * runners do) every 5 ms until it is handed a task. The push's time is git's, from start to exit;
 * the task's time runs from the same start to the answer that carried the task. Medians over the
 * rounds, after one discarded round.
 *
 *   node bench/ci-push-to-task.ts [--rounds 15]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { create } from '@bufbuild/protobuf';
import {
  FetchTaskRequestSchema,
  FetchTaskResponseSchema,
} from '../src/gen/runner/v1/messages_pb.js';
import { GitClient, repoUrl } from '../test/support/git.ts';
import { registerBenchRunner, startBenchKiln, unaryCaller } from './_kiln.ts';
import { seedBenchPerson } from './_seed.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' } } });
const ROUNDS = Number(values.rounds);
const POLL_MS = 5;

const WORKFLOW = `on: push
jobs:
  build:
    runs-on: bench
    steps: [{run: make}]
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const dataDir = mkdtempSync(join(tmpdir(), 'kiln-bench-'));
const { app, server, url } = await startBenchKiln({
  dataDir,
  databaseUrl: process.env.SERVICE_DATABASE_URL,
});
const git = await GitClient.create();
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
try {
  const { services } = app;
  const { user: owner, token } = await seedBenchPerson(services);
  await services.repos.create(owner, { name: 'pushed', private: false });
  const origin = repoUrl(url, 'bench', 'pushed', { token, as: 'password' });
  const work = await git.init();
  await git.commit(work, { '.gitea/workflows/ci.yml': WORKFLOW, 'round.txt': 'start\n' });
  await git.ok(['push', '-q', origin, 'HEAD:refs/heads/main'], { cwd: work });

  const registered = await registerBenchRunner(services);
  const headers = { 'x-runner-uuid': registered.runner.uuid, 'x-runner-token': registered.token };
  const unary = unaryCaller(url, agent);
  let version = 0n;
  const fetchTask = async () => {
    const answer = await unary(
      'runner.v1.RunnerService/FetchTask',
      FetchTaskRequestSchema,
      FetchTaskResponseSchema,
      create(FetchTaskRequestSchema, { tasksVersion: version }),
      headers,
    );
    version = answer.tasksVersion;
    return answer.task;
  };
  // The task of the first push, so that the runner waits with nothing to do.
  while ((await fetchTask()) !== undefined);

  const pushes: number[] = [];
  const tasks: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    await git.commit(work, { 'round.txt': `round ${round}\n` });
    const started = performance.now();
    const pushed = git
      .ok(['push', '-q', origin, 'HEAD:refs/heads/main'], { cwd: work })
      .then(() => performance.now() - started);
    let taskMs = 0;
    for (;;) {
      const task = await fetchTask();
      if (task !== undefined) {
        taskMs = performance.now() - started;
        break;
      }
      if (performance.now() - started > 60_000) throw new Error('no task within a minute');
      await sleep(POLL_MS);
    }
    const pushMs = await pushed;
    if (round === 0) continue;
    pushes.push(pushMs);
    tasks.push(taskMs);
  }
  const push = median(pushes);
  const task = median(tasks);
  const ratio = task / push;
  console.log(`push: ${push.toFixed(1)} ms; first task to a waiting runner: ${task.toFixed(1)} ms`);
  console.log(
    JSON.stringify({
      figures: [
        {
          name: 'push start to first task for a waiting runner ÷ the push, medians',
          target: '≤ 2',
          measured: Number(ratio.toFixed(2)),
          unit: 'ratio',
          pass: ratio <= 2,
        },
      ],
    }),
  );
} finally {
  agent.destroy();
  await git.dispose();
  await server.close();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
