/**
 * The event loop of a Kiln process while the worst pages to render are requested:
 *
 * 1. Event-loop delay p99 while 8 clients request, in a loop, pages that render crafted content
 *    (highlight.js grammars that backtrack, 400 KB of expensive markdown as a README, a release
 *    and a pull request; test/hostile/crafted-content.ts). Target ≤ 50 ms.
 * 2. The same process idle (target ≤ 10 ms).
 * 3. `/healthz` p99 under that load ÷ its p99 idle (target ≤ 3).
 * 4. The baseline of the same run: the same kinds of page (home with README, file views,
 *    releases, a pull request) with ordinary content, same clients, before the crafted content
 *    is pushed. Crafted ÷ ordinary event-loop delay p99 shows what rendering adds (target ≤ 2).
 * 5. Event-loop delay p99 and `/healthz` p99 ÷ idle while clients clone and push
 *    (bench/_git-load.ts; their git at the lowest priority, as clients on other machines would
 *    take no core of the server's), in rounds alternating between a fresh process starting git
 *    through its spawner and one starting git directly (`KILN_GIT_SPAWNER=0`): the spawner's
 *    figures against the targets (≤ 50 ms, ≤ 3), the direct ones beside them as the baseline.
 *
 *   node bench/render-load.ts [--idle 20] [--load 20] [--git 10]
 *
 * Kiln is a real `node src/main.ts serve` child process (the hostile suites' harness); the delay
 * comes from its own `/metrics` (prom-client samples `monitorEventLoopDelay` every 10 ms and
 * starts a new histogram at every scrape, so one scrape before and one after a phase bracket it;
 * the histogram holds intervals between ticks, so the delay is the interval less the 10 ms).
 * `/healthz` is asked one request after another, 20 ms apart, by the bench process: about 45
 * answers a second, so that a p99 is the ninth-worst of 900, not the third of 400. The crafted
 * load starts cold: the first requests render, run out of time and replace workers.
 */
import { parseArgs } from 'node:util';
import { seedCraftedContent } from '../test/hostile/crafted-content.ts';
import { type HostileWorld, hostileWorld } from '../test/hostile/support.ts';
import type { KilnProcess } from '../test/replicas/kiln-process.ts';
import { remoteGitLoad } from './_git-load.ts';
import { giveUpAfter } from './_give-up.ts';
import { pageClients } from './_page-clients.ts';

const { values: args } = parseArgs({
  options: {
    idle: { type: 'string', default: '20' },
    load: { type: 'string', default: '20' },
    git: { type: 'string', default: '10' },
  },
});
const IDLE_MS = Number(args.idle) * 1000;
const LOAD_MS = Number(args.load) * 1000;
const GIT_MS = Number(args.git) * 1000;
const CLIENTS = 8;
/** prom-client's default `eventLoopMonitoringPrecision`. */
const SAMPLE_MS = 10;

const done = giveUpAfter('render-load', 8);

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/** Event-loop delay p99 (ms) since the previous scrape; the scrape starts the next interval. */
async function loopDelayP99(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text);
  if (!match?.[1]) throw new Error('no nodejs_eventloop_lag_p99_seconds in /metrics');
  return Math.max(0, Number(match[1]) * 1000 - SAMPLE_MS);
}

/** `/healthz` latencies (ms), one request at a time, until `ms` have passed. */
async function probeHealth(url: string, ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const started = performance.now();
    const response = await fetch(`${url}/healthz`);
    await response.text();
    if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return latencies;
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

type Phase = { delayP99: number; health: number[]; statuses: Map<number, number> };

/**
 * `CLIENTS` clients request `pages` in a loop for `LOAD_MS`, from a worker thread, while
 * `/healthz` is probed from this one.
 */
async function loadPhase(url: string, pages: readonly string[]): Promise<Phase> {
  await loopDelayP99(url);
  const [statuses, health] = await Promise.all([
    pageClients({ url, pages, clients: CLIENTS, ms: LOAD_MS }),
    probeHealth(url, LOAD_MS),
  ]);
  return { delayP99: await loopDelayP99(url), health, statuses };
}

type GitRound = {
  readonly direct: boolean;
  readonly delayP99: number;
  readonly health: number[];
  readonly operations: number;
  readonly rssMb: number;
};

/**
 * Clones and pushes against a fresh Kiln process, git started directly or through the spawner,
 * while `/healthz` is probed; a first short load (not counted) warms the process up.
 */
async function gitRound(world: HostileWorld, direct: boolean): Promise<[GitRound, KilnProcess]> {
  const kiln = await world.deployment.start(direct ? { KILN_GIT_SPAWNER: '0' } : {});
  const target = { url: kiln.url, owner: world.owner, repo: world.repo, token: world.token };
  await remoteGitLoad(target, 1_000);
  await loopDelayP99(kiln.url);
  const [operations, health] = await Promise.all([
    remoteGitLoad(target, GIT_MS),
    probeHealth(kiln.url, GIT_MS),
  ]);
  const delayP99 = await loopDelayP99(kiln.url);
  return [{ direct, delayP99, health, operations, rssMb: kiln.rssBytes() / 2 ** 20 }, kiln];
}

/** Rounds alternating direct and spawner, each on a fresh process. */
async function gitRounds(world: HostileWorld): Promise<GitRound[]> {
  await world.kiln.stop();
  const rounds: GitRound[] = [];
  for (const direct of [true, false, true, false]) {
    const [round, kiln] = await gitRound(world, direct);
    rounds.push(round);
    await kiln.stop();
  }
  return rounds;
}

function gitSummary(rounds: readonly GitRound[], direct: boolean) {
  const mine = rounds.filter((round) => round.direct === direct);
  const delays = mine.map((round) => round.delayP99);
  return {
    delayP99: delays.reduce((a, b) => a + b, 0) / delays.length,
    healthP99: quantile(
      mine.flatMap((round) => round.health),
      0.99,
    ),
    healthMedian: quantile(
      mine.flatMap((round) => round.health),
      0.5,
    ),
  };
}

const answered = (phase: Phase) =>
  [...phase.statuses].map(([status, n]) => `${n} × ${status}`).join(', ');

async function main(): Promise<void> {
  const world = await hostileWorld();
  try {
    const url = world.kiln.url;
    const base = `/repos/${world.owner}/${world.repo}`;
    const ordinaryPages = [
      base,
      `${base}/src/main/README.md`,
      `${base}/src/topic/topic.txt`,
      `${base}/releases`,
      `${base}/pulls/1`,
    ];

    await loopDelayP99(url);
    const idleHealth = await probeHealth(url, IDLE_MS);
    const idleDelay = await loopDelayP99(url);
    const ordinary = await loadPhase(url, ordinaryPages);
    const crafted = await loadPhase(url, await seedCraftedContent(world));
    const loadDelay = crafted.delayP99;
    const loadHealth = crafted.health;
    const delayRatio = loadDelay / Math.max(1, ordinary.delayP99);
    const idleHealthP99 = quantile(idleHealth, 0.99);
    const healthRatio = quantile(loadHealth, 0.99) / idleHealthP99;
    const rounds = await gitRounds(world);
    const spawner = gitSummary(rounds, false);
    const direct = gitSummary(rounds, true);
    const gitHealthRatio = spawner.healthP99 / idleHealthP99;
    const lines = [
      '',
      `event-loop delay and /healthz: idle ${IDLE_MS / 1000} s, then ${CLIENTS} clients for ${LOAD_MS / 1000} s on ordinary pages, then on crafted ones`,
      `  event-loop delay p99 idle      ${fmt(idleDelay)} ms  (target <= 10)`,
      `  ... ordinary pages             ${fmt(ordinary.delayP99)} ms  (${answered(ordinary)})`,
      `  ... crafted pages              ${fmt(loadDelay)} ms  (target <= 50; ${answered(crafted)})`,
      `  ratio crafted / ordinary       ${fmt(delayRatio, 2)}  (target <= 2.00)`,
      `  /healthz idle                  median ${fmt(quantile(idleHealth, 0.5))} ms  p99 ${fmt(quantile(idleHealth, 0.99))} ms`,
      `  /healthz ordinary pages        median ${fmt(quantile(ordinary.health, 0.5))} ms  p99 ${fmt(quantile(ordinary.health, 0.99))} ms`,
      `  /healthz crafted pages         median ${fmt(quantile(loadHealth, 0.5))} ms  p99 ${fmt(quantile(loadHealth, 0.99))} ms`,
      `  ratio p99 crafted / idle       ${fmt(healthRatio, 2)}  (target <= 3.00)`,
      `clones and pushes (3 cloning, 1 pushing) for ${GIT_MS / 1000} s per round, each round a fresh process`,
      ...rounds.map(
        (round, i) =>
          `  round ${i + 1} ${round.direct ? 'direct ' : 'spawner'}  delay p99 ${fmt(round.delayP99)} ms  /healthz median ${fmt(quantile(round.health, 0.5))} ms p99 ${fmt(quantile(round.health, 0.99))} ms  (${round.operations} clones and pushes, RSS ${fmt(round.rssMb)} MB)`,
      ),
      `  git through the spawner: delay p99 ${fmt(spawner.delayP99)} ms (target <= 50), /healthz median ${fmt(spawner.healthMedian)} ms p99 ${fmt(spawner.healthP99)} ms, ÷ idle ${fmt(gitHealthRatio, 2)} (target <= 3.00)`,
      `  git started directly:    delay p99 ${fmt(direct.delayP99)} ms, /healthz median ${fmt(direct.healthMedian)} ms p99 ${fmt(direct.healthP99)} ms, ÷ idle ${fmt(direct.healthP99 / idleHealthP99, 2)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const figures = [
      {
        name: `event-loop delay p99, ${CLIENTS} clients on crafted pages`,
        target: '≤ 50',
        measured: Number(fmt(loadDelay)),
        unit: 'ms',
        pass: loadDelay <= 50,
      },
      {
        name: 'event-loop delay p99, crafted ÷ ordinary pages under the same load',
        target: '≤ 2',
        measured: Number(delayRatio.toFixed(2)),
        unit: 'ratio',
        pass: delayRatio <= 2,
      },
      {
        name: 'event-loop delay p99, idle',
        target: '≤ 10',
        measured: Number(fmt(idleDelay)),
        unit: 'ms',
        pass: idleDelay <= 10,
      },
      {
        name: `\`/healthz\` p99 under that load ÷ idle`,
        target: '≤ 3',
        measured: Number(healthRatio.toFixed(2)),
        unit: 'ratio',
        pass: healthRatio <= 3,
      },
      {
        name: 'event-loop delay p99 under clones and pushes, git through the spawner',
        target: '≤ 50',
        measured: Number(fmt(spawner.delayP99)),
        unit: 'ms',
        pass: spawner.delayP99 <= 50,
      },
      {
        name: '`/healthz` p99 under clones and pushes ÷ idle, git through the spawner',
        target: '≤ 3',
        measured: Number(gitHealthRatio.toFixed(2)),
        unit: 'ratio',
        pass: gitHealthRatio <= 3,
      },
    ];
    process.stdout.write(`${JSON.stringify({ figures })}\n`);
    process.exitCode = figures.every((figure) => figure.pass) ? 0 : 1;
  } finally {
    await world.dispose();
    done();
  }
}

await main();
