/**
 * Many clones at once: 50 `git clone --bare` processes started together against Kiln's smart
 * HTTP, against the same 50 through `git http-backend` behind a minimal Node HTTP server, with
 * Kiln as its own process started as the `kiln` launcher starts it.
 *
 * 1. A synthetic repository of about 50 MB (`git fast-import`, random bytes, a few hundred
 *    commits) is pushed into Kiln; once Kiln's housekeeping after that push has finished, the
 *    reference serves the very same bare repository (`GIT_PROJECT_ROOT` is the owner's directory
 *    in Kiln's data dir), so both sides read the same packs, bitmap and commit-graph.
 * 2. Each round starts all clones of one side at once and takes the wall time until the last has
 *    finished; the sides alternate, the order rotating every round, and the medians are compared.
 *    Every clone must succeed and end on the source's tip.
 * 3. During Kiln's rounds the resident memory (VmRSS) of Kiln's node processes (the server and
 *    its git spawner) is sampled every 100 ms, and for reference that of the git processes under
 *    them. Only Kiln's side is sampled: reading /proc takes CPU on the bench's main thread, which
 *    on the reference's side is the very relay being timed.
 *
 *   node bench/clone-fanout.ts [--rounds 3] [--clones 50] [--megabytes 50] [--commits 300]
 *
 * Targets: Kiln's median ≤ 1.1 × the reference's, Kiln's node processes ≤ 300 MB at their peak.
 * Prints the figures and ends with one JSON line (bench/run.ts's contract); exits non-zero when
 * a target is missed. A watchdog ends everything after 12 minutes; all data lives in a temporary
 * directory removed at the end; everything listens on 127.0.0.1.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cliUserWithToken,
  type ServerProcess,
  serverEnv,
  startServerProcess,
} from '../test/git/server-process.ts';
import { GitClient, repoUrl } from '../test/support/git.ts';
import {
  cloneAtOnce,
  cloneBenchArgs,
  MB,
  printFigures,
  seedServedRepository,
} from './_git-serve.ts';
import { startHttpBackend } from './_http-backend.ts';
import { cpuUs } from './_http-load.ts';
import { type MemoryPeaks, sampleMemory } from './_process-memory.ts';
import { startEnv, startFlags } from './_start-flags.ts';
import { median } from './_stats.ts';

const { rounds: ROUNDS, clones: CLONES, ...args } = cloneBenchArgs({ rounds: 3, clones: 50 });
const OWNER = 'bench-owner';
const RATIO_TARGET = 1.1;
const RSS_TARGET_MB = 300;
const SAMPLE_MS = 100;

const root = await mkdtemp(join(tmpdir(), 'kiln-bench-clone-fanout-'));
const git = await GitClient.create();
let server: ServerProcess | undefined;
let backend: { url: string; close: () => void } | undefined;

const watchdog = setTimeout(
  () => {
    process.stderr.write('clone-fanout: watchdog: giving up after 12 minutes\n');
    void server?.kill();
    // Fifty clones of the repository may be on disk: they go even when the bench gives up.
    rmSync(root, { recursive: true, force: true });
    process.exit(2);
  },
  12 * 60 * 1000,
);
watchdog.unref();

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Starts `count` bare clones of `url` at once; the wall ms until the last has finished. */
const fanOut = (url: string, tag: string, tip: string, count = CLONES) =>
  cloneAtOnce(git, root, { url, tag, tip, count });

type Side = {
  readonly url: string;
  /** Whether Kiln's memory is sampled during this side's rounds. */
  readonly sampled: boolean;
  readonly ms: number[];
  /** CPU of Kiln's server process per round (ms), and of the bench process (the reference's relay). */
  readonly serverCpuMs: number[];
  readonly benchCpuMs: number[];
};

try {
  const env = serverEnv(join(root, 'data'));
  const token = await cliUserWithToken(env, OWNER);
  server = await startServerProcess(
    { ...startEnv(), ...env },
    { cwd: root, nodeArgs: startFlags() },
  );
  log(`kiln: pid ${server.pid} (node ${startFlags().join(' ')})`);

  log(`generating ${args.commits} commits, ${args.megabytes} MB of random data`);
  const repository = await seedServedRepository(git, server, {
    ...args,
    rounds: ROUNDS,
    clones: CLONES,
    token,
    owner: OWNER,
    source: join(root, 'source.git'),
    dataDir: join(root, 'data'),
  });
  log(`repository: ${(repository.bytes / MB).toFixed(1)} MB in ${repository.packs} pack(s)`);
  const ownerDir = join(root, 'data', 'repositories', OWNER);
  backend = await startHttpBackend(ownerDir);

  const fresh = () => ({ ms: [], serverCpuMs: [], benchCpuMs: [] });
  const sides: Record<string, Side> = {
    kiln: { url: repoUrl(server.url, OWNER, 'served'), sampled: true, ...fresh() },
    'http-backend': { url: `${backend.url}/served.git`, sampled: false, ...fresh() },
  };
  let peaks: MemoryPeaks = { server: 0, node: 0, git: 0, children: 0 };
  const names = Object.keys(sides);
  // One clone per side first (page cache, first-request costs), not counted.
  for (const name of names) await fanOut(sides[name]!.url, `warm-${name}`, repository.tip, 1);
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      const side = sides[name]!;
      const stop = side.sampled ? sampleMemory(server.pid, SAMPLE_MS) : undefined;
      const cpu = { server: cpuUs(server), bench: process.cpuUsage() };
      side.ms.push(await fanOut(side.url, `${name}-${round}`, repository.tip));
      const bench = process.cpuUsage(cpu.bench);
      side.serverCpuMs.push((cpuUs(server) - cpu.server) / 1000);
      side.benchCpuMs.push((bench.user + bench.system) / 1000);
      const sampled = await stop?.();
      if (sampled) {
        peaks = {
          server: Math.max(peaks.server, sampled.server),
          node: Math.max(peaks.node, sampled.node),
          git: Math.max(peaks.git, sampled.git),
          children: Math.max(peaks.children, sampled.children),
        };
      }
    }
    log(
      `round ${round + 1}: ${names.map((n) => `${n} ${sides[n]!.ms.at(-1)!.toFixed(0)} ms`).join(', ')}`,
    );
  }

  const kiln = sides.kiln!;
  const reference = sides['http-backend']!;
  const ratio = Number((median(kiln.ms) / median(reference.ms)).toFixed(3));
  const rss = Number((peaks.node / MB).toFixed(1));
  const size = `${(repository.bytes / MB).toFixed(0)} MB`;
  const figures = [
    {
      name: `${CLONES} clones at once of a ${size} repository, Kiln ÷ git http-backend, medians of ${ROUNDS}`,
      target: `≤ ${RATIO_TARGET}`,
      measured: ratio,
      unit: 'ratio',
      pass: ratio <= RATIO_TARGET,
    },
    {
      name: `Kiln's node processes (server and git spawner) during ${CLONES} clones, RSS peak`,
      target: `≤ ${RSS_TARGET_MB} MB`,
      measured: rss,
      unit: 'MB',
      pass: rss <= RSS_TARGET_MB,
    },
  ];
  const details = Object.fromEntries(
    names.map((name) => {
      const side = sides[name]!;
      return [
        name,
        {
          medianMs: Math.round(median(side.ms)),
          ms: side.ms.map(Math.round),
          kilnServerCpuMedianMs: Math.round(median(side.serverCpuMs)),
          benchProcessCpuMedianMs: Math.round(median(side.benchCpuMs)),
          ...(side.sampled
            ? {
                serverRssPeakMB: Number((peaks.server / MB).toFixed(1)),
                nodeRssPeakMB: rss,
                gitRssPeakMB: Number((peaks.git / MB).toFixed(1)),
              }
            : {}),
        },
      ];
    }),
  );
  printFigures(figures);
  for (const [name, d] of Object.entries(details)) {
    process.stdout.write(
      `${name.padEnd(13)} median ${d.medianMs} ms (${d.ms.join(', ')}); CPU per round: Kiln's server ${d.kilnServerCpuMedianMs} ms, the bench process ${d.benchProcessCpuMedianMs} ms\n`,
    );
  }
  process.stdout.write(
    `RSS peaks during Kiln's rounds: server ${(peaks.server / MB).toFixed(1)} MB, with its spawner ${rss} MB; git processes ${(peaks.git / MB).toFixed(1)} MB (each counts the pack's pages it has read)\n`,
  );
  process.stdout.write(
    `${JSON.stringify({ figures, details: { repositoryMB: Number((repository.bytes / MB).toFixed(1)), commits: args.commits, clones: CLONES, rounds: ROUNDS, sides: details } })}\n`,
  );
  process.exitCode = figures.every((figure) => figure.pass) ? 0 : 1;
} finally {
  await server?.stop().catch(() => {});
  backend?.close();
  await git.dispose();
  await rm(root, { recursive: true, force: true });
  clearTimeout(watchdog);
}
