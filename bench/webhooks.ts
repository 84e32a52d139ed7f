/**
 * Webhooks off the push path, and the queue's pace.
 *
 * 1. Push: a one-commit `git push` over smart HTTP into a repository with 20 active hooks
 *    against the same into a repository with none, alternating, the order rotating every round;
 *    before each push the previous deliveries are drained, so each push is timed alone. Target:
 *    median with hooks ≤ 1.05 × median without.
 * 2. Drain: 10,000 deliveries queued at once for a local receiver answering 200, timed until the
 *    queue is empty, against the same number of requests sent straight to the receiver with the
 *    same concurrency (reported for reference). Target: ≥ 500 deliveries per second. The
 *    process's CPU per delivery is reported too: on shared cores it moves less than the rate.
 *
 *   node bench/webhooks.ts [--rounds 11] [--deliveries 10000]
 *
 * Kiln runs in this process (SQLite unless KILN_TEST_DATABASE_URL names PostgreSQL), so the
 * worker shares the CPU with the bench, as it would with requests. Ends with one JSON line
 * (bench/run.ts's contract); exits non-zero when a target is missed.
 */
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { DeliveryStore } from '../src/domain/webhooks/delivery.store.ts';
import { queuedRow } from '../src/domain/webhooks/webhook.service.ts';
import { caller, createRepo } from '../test/api/fixtures.ts';
import { GitClient, repoUrl } from '../test/support/git.ts';
import { startTestServer } from '../test/support/server.ts';
import { Receiver } from '../test/webhooks/receiver.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '11' },
    deliveries: { type: 'string', default: '10000' },
  },
});
const ROUNDS = Number(args.rounds);
const DELIVERIES = Number(args.deliveries);
const HOOKS = 20;
const log = (line: string) => process.stderr.write(`${line}\n`);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const receiver = await Receiver.start();
const kiln = await startTestServer({
  SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
  SERVICE_SECRET_KEY: 'bench key for webhook signing',
  SERVICE_BASE_URL: 'http://kiln.bench',
});
const git = await GitClient.create();
try {
  const alice = await caller(kiln);
  const user = await kiln.app.services.users.getUser(alice.handle);
  const { webhooks } = kiln.app.services;
  const work: Record<string, string> = {};
  for (const name of ['plain', 'hooked']) {
    await createRepo(kiln, alice, name);
    work[name] = await git.clone(
      repoUrl(kiln.url, alice.handle, name, { token: alice.token, as: 'username' }),
    );
  }
  const hooked = await webhooks.repoOwner(user, alice.handle, 'hooked');
  for (let i = 0; i < HOOKS; i++) {
    await webhooks.create(hooked, {
      type: i % 2 === 0 ? 'gitea' : 'slack',
      url: `${receiver.url}/hook-${i}`,
      secret: `secret ${i}`,
      events: ['push', 'create'],
      active: true,
    });
  }
  const deliveries = new DeliveryStore(kiln.app.database.db);
  let expected = 0;
  /** Every delivery so far has reached the receiver and been recorded. */
  const drained = async () => {
    // The receiver's count first: counting the queue scans it, and asking every 5 ms while
    // 10,000 rows wait took CPU from the worker being measured.
    while (receiver.received.length < expected) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    while ((await deliveries.countQueued()) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  // 1. Pushes.
  const times: Record<string, number[]> = { plain: [], hooked: [] };
  for (let round = 0; round < ROUNDS + 1; round++) {
    const order = round % 2 === 0 ? ['plain', 'hooked'] : ['hooked', 'plain'];
    for (const name of order) {
      const dir = work[name] as string;
      await git.commit(dir, { [`f${round}.txt`]: `${round}\n` }, `round ${round}`);
      await drained();
      const started = performance.now();
      await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir });
      // The first round warms both sides up and is not counted.
      if (round > 0) times[name]?.push(performance.now() - started);
      if (name === 'hooked') expected += HOOKS;
    }
  }
  await drained();
  const pushRatio = median(times.hooked ?? []) / median(times.plain ?? []);
  log(
    `push: without hooks ${median(times.plain ?? []).toFixed(1)} ms, with ${HOOKS} hooks ${median(times.hooked ?? []).toFixed(1)} ms, ratio ${pushRatio.toFixed(3)}`,
  );

  // 2. Drain.
  const [target] = await webhooks.list(hooked);
  if (!target) throw new Error('no hook');
  const body = JSON.stringify({ ref: 'refs/heads/main', commits: [], bench: true });
  // Held back while they are written, then released at once.
  const rows = Array.from({ length: DELIVERIES }, () => ({
    ...queuedRow(target.id, 'push', 'push', body, Date.now()),
    next_attempt_at: Number.MAX_SAFE_INTEGER,
  }));
  await deliveries.enqueue(rows);
  expected += DELIVERIES;
  const drainStarted = performance.now();
  const drainCpu = process.cpuUsage();
  await kiln.app.database.db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: 0 })
    .where('state', '=', 'queued')
    .execute();
  await drained();
  const drainSeconds = (performance.now() - drainStarted) / 1000;
  const { user: drainUser, system: drainSystem } = process.cpuUsage(drainCpu);
  // The process's CPU, receiver included: what one delivery costs whatever else the cores do.
  const cpuPerDelivery = (drainUser + drainSystem) / DELIVERIES;
  const rate = DELIVERIES / drainSeconds;
  const direct = await directRate(
    receiver.url,
    DELIVERIES,
    kiln.app.config.webhook.concurrency,
    body,
  );
  log(
    `drain: ${DELIVERIES} deliveries in ${drainSeconds.toFixed(2)} s = ${rate.toFixed(0)}/s, ${cpuPerDelivery.toFixed(0)} µs CPU each (straight to the receiver: ${direct.toFixed(0)}/s)`,
  );

  const figures = [
    {
      name: `push with ${HOOKS} hooks ÷ without`,
      target: '≤ 1.05',
      measured: Number(pushRatio.toFixed(3)),
      unit: '×',
      pass: pushRatio <= 1.05,
    },
    {
      name: 'queued deliveries drained per second',
      target: '≥ 500',
      measured: Math.round(rate),
      unit: '/s',
      pass: rate >= 500,
    },
    {
      name: 'CPU per drained delivery, worker and receiver in one process',
      target: 'reported',
      measured: Math.round(cpuPerDelivery),
      unit: 'µs',
      pass: true,
    },
  ];
  process.stdout.write(`${JSON.stringify({ figures })}\n`);
  process.exitCode = figures.every((figure) => figure.pass) ? 0 : 1;
} finally {
  await git.dispose();
  await kiln.close();
  await receiver.close();
}

/** Requests per second posting `count` bodies straight to the receiver, `concurrency` at once. */
async function directRate(url: string, count: number, concurrency: number, body: string) {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      next += 1;
      await new Promise<void>((resolve, reject) => {
        const outgoing = request(
          url,
          { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
          (incoming) => {
            incoming.resume();
            incoming.on('end', resolve);
          },
        );
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return count / ((performance.now() - started) / 1000);
}
