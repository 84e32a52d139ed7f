/**
 * Git over HTTP against git alone, with the real git client and Kiln as its own process.
 *
 * 1. A synthetic repository of about 50 MB (`git fast-import`: one file of random bytes per
 *    commit, so nothing compresses away, plus a small text file rewritten every time, a few
 *    hundred commits), repacked into one pack, is the source of every push and, once pushed into
 *    Kiln, the bare repository every clone reads.
 * 2. Clone: `git clone --no-checkout` over Kiln's smart HTTP against `git clone --no-local
 *    --no-checkout file://` of the same bare repository. Push: the whole history into a new empty
 *    Kiln repository against a push into a new empty bare repository over file://. The sides
 *    alternate, the order rotating every round; each figure compares medians.
 * 3. Kiln runs twice: as the `kiln` launcher runs it (the launcher's node flags), and
 *    with `--max-semi-space-size=2` when that differs (see docs/performance.md, "Git over HTTP",
 *    for why). The resident memory (VmRSS) of each `node` process is sampled every 10 ms during
 *    its clones; git's own processes are reported beside it.
 * 4. For reference only, the same clone and push through `git http-backend` behind a minimal
 *    Node HTTP server: what HTTP costs git itself.
 *
 *   node bench/clone-push.ts [--rounds 11] [--commits 300] [--megabytes 50]
 *
 * Eleven rounds by default, not five: on two cores shared with everything else, the median of
 * five moved by ±0.05 from one run of the bench to the next, the median of eleven by ±0.02 (see
 * docs/performance.md, "Clone and push").
 *
 * Targets: clone ratio ≤ 1.15, push ratio ≤ 1.20, server RSS ≤ 200 MB, judged on the launcher's
 * configuration. Prints the figures and ends with one JSON line (bench/run.ts's contract); exits
 * non-zero when a target is missed. A watchdog ends everything after 15 minutes; all data lives
 * in a temporary directory removed at the end.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cliUserWithToken,
  type ServerProcess,
  serverEnv,
  startServerProcess,
} from '../test/git/server-process.ts';
import { GitClient, repoUrl } from '../test/support/git.ts';
import { cloneBenchArgs, MB, syntheticRepository } from './_git-serve.ts';
import { startHttpBackend } from './_http-backend.ts';
import { sampleMemory } from './_process-memory.ts';
import { startEnv, startFlags } from './_start-flags.ts';
import { median } from './_stats.ts';

const { rounds: ROUNDS, commits: COMMITS, megabytes: MEGABYTES } = cloneBenchArgs({ rounds: 11 });
const OWNER = 'bench-owner';
const TUNED_FLAGS = ['--max-semi-space-size=2', '--initial-old-space-size=64'];

const root = await mkdtemp(join(tmpdir(), 'kiln-bench-clone-push-'));
const git = await GitClient.create();
const servers: ServerProcess[] = [];
let backend: { url: string; close: () => void } | undefined;

const watchdog = setTimeout(
  () => {
    process.stderr.write('clone-push: watchdog: giving up after 15 minutes\n');
    for (const server of servers) void server.kill();
    process.exit(2);
  },
  15 * 60 * 1000,
);
watchdog.unref();

const log = (line: string) => process.stderr.write(`${line}\n`);

async function timed(label: string, gitArgs: string[]): Promise<number> {
  const started = performance.now();
  const result = await git.run(gitArgs, { cwd: root, timeoutMs: 300_000 });
  if (result.code !== 0) throw new Error(`${label} failed:\n${result.stderr}`);
  return performance.now() - started;
}

type Side = {
  name: string;
  flags: string[];
  dataDir: string;
  token?: string;
  server?: ServerProcess;
};

async function api(side: Side, method: string, path: string, body?: object) {
  const response = await fetch(`${side.server!.url}/api/v1${path}`, {
    method,
    headers: { authorization: `token ${side.token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status}`);
}

type Samples = { clone: number[]; push: number[]; rss: number; gitRss: number };

try {
  const shipped = startFlags();
  const kilns: Side[] = [{ name: 'kiln', flags: shipped, dataDir: join(root, 'data') }];
  if (!TUNED_FLAGS.every((flag) => shipped.includes(flag))) {
    kilns.push({ name: 'kiln-tuned', flags: TUNED_FLAGS, dataDir: join(root, 'data-tuned') });
  }
  for (const side of kilns) {
    const env = serverEnv(side.dataDir);
    side.token = await cliUserWithToken(env, OWNER);
    side.server = await startServerProcess(
      { ...startEnv(), ...env },
      { cwd: root, nodeArgs: side.flags },
    );
    servers.push(side.server);
    log(`${side.name}: pid ${side.server.pid} (node ${side.flags.join(' ') || 'without flags'})`);
  }

  const source = join(root, 'source.git');
  log(`generating ${COMMITS} commits, ${MEGABYTES} MB of random data`);
  const repository = await syntheticRepository(git, source, {
    commits: COMMITS,
    megabytes: MEGABYTES,
  });
  const size = repository.bytes;
  log(`repository: ${(size / MB).toFixed(1)} MB in ${repository.packs} pack(s)`);

  // Every side serves a copy of the same history, pushed once before the timed runs.
  const kilnUrl = (side: Side, name: string, auth = false) =>
    repoUrl(
      side.server!.url,
      OWNER,
      name,
      auth ? { token: side.token!, as: 'password' } : undefined,
    );
  for (const side of kilns) {
    await api(side, 'POST', '/user/repos', { name: 'served' });
    await git.ok(['--git-dir', source, 'push', '-q', kilnUrl(side, 'served', true), 'main'], {
      timeoutMs: 300_000,
    });
  }
  const served = join(kilns[0]!.dataDir, 'repositories', OWNER, 'served.git');
  const cgiRoot = join(root, 'cgi');
  await mkdir(cgiRoot);
  backend = await startHttpBackend(cgiRoot);
  const backendUrl = backend.url;
  await git.ok([
    'clone',
    '-q',
    '--bare',
    '--no-local',
    `file://${served}`,
    join(cgiRoot, 'served.git'),
  ]);

  const clones: Record<string, (dir: string) => Promise<number>> = {
    file: (dir) =>
      timed('file clone', ['clone', '-q', '--no-local', '--no-checkout', `file://${served}`, dir]),
    'http-backend': (dir) =>
      timed('backend clone', ['clone', '-q', '--no-checkout', `${backendUrl}/served.git`, dir]),
  };
  const pushes: Record<string, (round: number) => Promise<number>> = {
    file: async (round) => {
      const target = join(root, `pushed-${round}.git`);
      await git.ok(['init', '-q', '--bare', target]);
      const ms = await timed('file push', [
        '--git-dir',
        source,
        'push',
        '-q',
        `file://${target}`,
        'main',
      ]);
      await rm(target, { recursive: true });
      return ms;
    },
    'http-backend': async (round) => {
      const target = join(cgiRoot, `pushed-${round}.git`);
      await git.ok(['init', '-q', '--bare', target]);
      await git.ok(['--git-dir', target, 'config', 'http.receivepack', 'true']);
      const ms = await timed('backend push', [
        '--git-dir',
        source,
        'push',
        '-q',
        `${backendUrl}/pushed-${round}.git`,
        'main',
      ]);
      await rm(target, { recursive: true });
      return ms;
    },
  };
  for (const side of kilns) {
    clones[side.name] = (dir) =>
      timed(`${side.name} clone`, ['clone', '-q', '--no-checkout', kilnUrl(side, 'served'), dir]);
    pushes[side.name] = async (round) => {
      const name = `pushed-${round}`;
      await api(side, 'POST', '/user/repos', { name });
      const ms = await timed(`${side.name} push`, [
        '--git-dir',
        source,
        'push',
        '-q',
        kilnUrl(side, name, true),
        'main',
      ]);
      await api(side, 'DELETE', `/repos/${OWNER}/${name}`);
      return ms;
    };
  }

  const names = Object.keys(clones);
  const samples: Record<string, Samples> = Object.fromEntries(
    names.map((name) => [name, { clone: [], push: [], rss: 0, gitRss: 0 }]),
  );
  // One warm-up clone per side (page cache, first-request costs), not counted.
  for (const name of names) {
    await clones[name]!(join(root, `warm-${name}`));
    await rm(join(root, `warm-${name}`), { recursive: true });
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      const dir = join(root, `clone-${name}-${round}`);
      samples[name]!.clone.push(await clones[name]!(dir));
      await rm(dir, { recursive: true });
    }
    for (const name of order) samples[name]!.push.push(await pushes[name]!(round));
    log(
      `round ${round + 1}: ${names.map((n) => `${n} clone ${samples[n]!.clone.at(-1)!.toFixed(0)} ms, push ${samples[n]!.push.at(-1)!.toFixed(0)} ms`).join('; ')}`,
    );
  }
  // Memory apart from the timed clones: sampling /proc every 10 ms takes CPU the clone would
  // otherwise have, and only the Kiln side is sampled.
  for (const side of kilns) {
    const stop = sampleMemory(side.server!.pid);
    const dir = join(root, `clone-${side.name}-sampled`);
    await clones[side.name]!(dir);
    const peaks = await stop();
    samples[side.name]!.rss = peaks.server;
    samples[side.name]!.gitRss = peaks.children;
    await rm(dir, { recursive: true });
  }

  const file = samples.file!;
  const ratio = (values: number[], base: number[]) =>
    Number((median(values) / median(base)).toFixed(3));
  const figures = kilns.flatMap((side) => {
    const s = samples[side.name]!;
    const how = side.name === 'kiln' ? '' : ` (node ${TUNED_FLAGS.join(' ')})`;
    const clone = ratio(s.clone, file.clone);
    const push = ratio(s.push, file.push);
    const rss = Number((s.rss / MB).toFixed(1));
    return [
      {
        name: `clone of a ${(size / MB).toFixed(0)} MB repository, HTTP ÷ file://, medians of ${ROUNDS}${how}`,
        target: '≤ 1.15',
        measured: clone,
        unit: 'ratio',
        pass: clone <= 1.15,
      },
      {
        name: `push of the same into an empty repository, HTTP ÷ file://, medians of ${ROUNDS}${how}`,
        target: '≤ 1.20',
        measured: push,
        unit: 'ratio',
        pass: push <= 1.2,
      },
      {
        name: `server RSS during the clones, peak${how}`,
        target: '≤ 200 MB',
        measured: rss,
        unit: 'MB',
        pass: rss <= 200,
      },
    ];
  });
  const details = Object.fromEntries(
    names.map((name) => {
      const s = samples[name]!;
      return [
        name,
        {
          cloneMedianMs: Math.round(median(s.clone)),
          pushMedianMs: Math.round(median(s.push)),
          cloneMs: s.clone.map(Math.round),
          pushMs: s.push.map(Math.round),
          ...(s.rss
            ? {
                rssPeakMB: Number((s.rss / MB).toFixed(1)),
                gitChildrenRssPeakMB: Number((s.gitRss / MB).toFixed(1)),
              }
            : {}),
        },
      ];
    }),
  );
  const judged = figures.filter((figure) => !figure.name.includes('(node'));
  for (const figure of figures) {
    const unit = figure.unit === 'ratio' ? '' : ` ${figure.unit}`;
    const verdict = figure.pass ? 'met   ' : judged.includes(figure) ? 'MISSED' : 'over  ';
    process.stdout.write(
      `${verdict} ${figure.name}: ${figure.measured}${unit} (target ${figure.target})\n`,
    );
  }
  for (const [name, d] of Object.entries(details)) {
    process.stdout.write(
      `${name.padEnd(13)} clone ${d.cloneMedianMs} ms, push ${d.pushMedianMs} ms${'rssPeakMB' in d ? `, RSS peak ${d.rssPeakMB} MB (git processes ${d.gitChildrenRssPeakMB} MB)` : ''}\n`,
    );
  }
  // What Kiln itself adds: git's own HTTP (its client, the loopback, a minimal relay) is the
  // reference's cost as much as Kiln's, so this ratio isolates the server.
  const reference = samples['http-backend']!;
  for (const side of kilns) {
    const s = samples[side.name]!;
    process.stdout.write(
      `${`${side.name} ÷ http-backend`.padEnd(24)} clone ${ratio(s.clone, reference.clone)}, push ${ratio(s.push, reference.push)}\n`,
    );
  }
  process.stdout.write(
    `${JSON.stringify({ figures, details: { repositoryMB: Number((size / MB).toFixed(1)), commits: COMMITS, rounds: ROUNDS, sides: details } })}\n`,
  );
  process.exitCode = judged.every((figure) => figure.pass) ? 0 : 1;
} finally {
  for (const server of servers) await server.stop().catch(() => {});
  backend?.close();
  await git.dispose();
  await rm(root, { recursive: true, force: true });
  clearTimeout(watchdog);
}
