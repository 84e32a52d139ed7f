/**
 * Git over SSH: one clone of a 50 MB repository through Kiln's SSH server against the same clone
 * over `file://`, and 50 SSH clones at once with the memory of Kiln's processes sampled, with
 * Kiln as its own process started as the `kiln` launcher starts it and OpenSSH's `ssh` as the
 * client.
 *
 * 1. A synthetic repository of about 50 MB is pushed into Kiln over HTTP; once housekeeping
 *    after the push has finished, `file://` clones read the very same bare repository.
 * 2. Single clones alternate between the sides, the order rotating every round; the medians are
 *    compared. Every clone must end on the source's tip.
 * 3. Then `--clones` SSH clones start at once while the resident memory (VmRSS) of Kiln's node
 *    processes (the server and its git spawner) is sampled every 100 ms.
 *
 *   node bench/ssh-clone.ts [--rounds 5] [--clones 50] [--megabytes 50] [--commits 300]
 *
 * Targets: SSH ÷ `file://` ≤ 1.2 (the encryption is the price); Kiln's node processes ≤ 300 MB
 * at their peak. Prints the figures and ends with one JSON line (bench/run.ts's contract);
 * exits non-zero when a target is missed. A watchdog ends everything after 12 minutes.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cliUserWithToken,
  type ServerProcess,
  serverEnv,
  startServerProcess,
} from '../test/git/server-process.ts';
import { freePort } from '../test/support/free-port.ts';
import { GitClient } from '../test/support/git.ts';
import {
  cloneAtOnce,
  cloneBenchArgs,
  MB,
  printFigures,
  seedServedRepository,
} from './_git-serve.ts';
import { cpuSoFar, serverCpu } from './_process-cpu.ts';
import { sampleMemory } from './_process-memory.ts';
import { startEnv, startFlags } from './_start-flags.ts';
import { median } from './_stats.ts';

const args = cloneBenchArgs({ rounds: 5, clones: 50 });
const OWNER = 'bench-owner';
const RATIO_TARGET = 1.2;
const RSS_TARGET_MB = 300;

const root = await mkdtemp(join(tmpdir(), 'kiln-bench-ssh-clone-'));
const git = await GitClient.create();
let server: ServerProcess | undefined;
const watchdog = setTimeout(
  () => {
    process.stderr.write('ssh-clone: watchdog: giving up after 12 minutes\n');
    void server?.kill();
    rmSync(root, { recursive: true, force: true });
    process.exit(2);
  },
  12 * 60 * 1000,
);
watchdog.unref();
const log = (line: string) => process.stderr.write(`${line}\n`);

try {
  const port = await freePort();
  const env = { ...serverEnv(join(root, 'data')), SERVICE_SSH_PORT: String(port) };
  const token = await cliUserWithToken(env, OWNER);
  server = await startServerProcess(
    { ...startEnv(), ...env },
    { cwd: root, nodeArgs: startFlags() },
  );
  const keyPath = join(root, 'id_ed25519');
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyPath]);
  const api = (path: string, body: unknown) =>
    fetch(`${server?.url}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const key = (await readFile(`${keyPath}.pub`, 'utf8')).trim();
  if ((await api('/user/keys', { title: 'bench', key })).status !== 201) throw new Error('key');

  log(`generating ${args.commits} commits, ${args.megabytes} MB of random data`);
  const repository = await seedServedRepository(git, server, {
    ...args,
    token,
    owner: OWNER,
    source: join(root, 'source.git'),
    dataDir: join(root, 'data'),
  });
  const { served } = repository;

  const ssh = {
    GIT_SSH_COMMAND: `ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -i ${keyPath} -p ${port}`,
  };
  const sides = {
    ssh: { url: `ssh://git@127.0.0.1:${port}/${OWNER}/served.git`, env: ssh, ms: [] as number[] },
    file: { url: `file://${served}`, env: {}, ms: [] as number[] },
  };
  /** CPU per clone, in ms: the client's processes (reaped by this one) and the server's. */
  const cpu = {
    ssh: { client: [] as number[], node: [] as number[], git: [] as number[] },
    file: { client: [] as number[], node: [] as number[], git: [] as number[] },
  };
  const serverPid = server.pid;
  const names = ['ssh', 'file'] as const;
  const clone = (name: (typeof names)[number], tag: string, count = 1) =>
    cloneAtOnce(git, root, { ...sides[name], tag, tip: repository.tip, count });
  for (const name of names) await clone(name, `warm-${name}`);
  for (let round = 0; round < args.rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const client = cpuSoFar('self').reaped;
      const before = await serverCpu(serverPid);
      sides[name].ms.push(await clone(name, `${name}-${round}`));
      const after = await serverCpu(serverPid);
      cpu[name].client.push(cpuSoFar('self').reaped - client);
      cpu[name].node.push(after.node - before.node);
      cpu[name].git.push(after.git - before.git);
    }
    log(
      `round ${round + 1}: ssh ${sides.ssh.ms.at(-1)?.toFixed(0)} ms, file ${sides.file.ms.at(-1)?.toFixed(0)} ms`,
    );
  }
  const stop = sampleMemory(server.pid, 100);
  const fanMs = await clone('ssh', 'fan', args.clones);
  const peaks = await stop();
  log(`${args.clones} SSH clones at once: ${fanMs.toFixed(0)} ms`);

  const ratio = Number((median(sides.ssh.ms) / median(sides.file.ms)).toFixed(3));
  // Client and server share this machine's cores: a clone can take no less than all the CPU it
  // costs spread over every core, whatever the server does with its own share.
  const cpuOf = (name: (typeof names)[number]) => ({
    client: median(cpu[name].client),
    node: median(cpu[name].node),
    git: median(cpu[name].git),
  });
  const sshCpu = cpuOf('ssh');
  const fileCpu = cpuOf('file');
  const cores = availableParallelism();
  const floor = Number(
    ((sshCpu.client + sshCpu.node + sshCpu.git) / cores / median(sides.file.ms)).toFixed(2),
  );
  const rss = Number((peaks.node / MB).toFixed(1));
  const size = `${(repository.bytes / MB).toFixed(0)} MB`;
  const figures = [
    {
      name: `Clone of a ${size} repository over SSH ÷ file://, medians of ${args.rounds}`,
      target: `≤ ${RATIO_TARGET}`,
      measured: ratio,
      unit: 'ratio',
      pass: ratio <= RATIO_TARGET,
    },
    {
      name: `the least that ratio can be with client and server on the same ${cores} cores: the SSH clone's CPU ÷ ${cores} ÷ the file:// clone's time`,
      target: 'reported',
      measured: floor,
      unit: 'ratio',
      pass: true,
    },
    {
      name: "Kiln's node processes, CPU per SSH clone, median",
      target: 'reported',
      measured: sshCpu.node,
      unit: 'ms',
      pass: true,
    },
    {
      name: `Kiln's node processes (server and git spawner) during ${args.clones} SSH clones at once, RSS peak`,
      target: `≤ ${RSS_TARGET_MB} MB`,
      measured: rss,
      unit: 'MB',
      pass: rss <= RSS_TARGET_MB,
    },
  ];
  printFigures(figures);
  process.stdout.write(
    `ssh ${sides.ssh.ms.map((ms) => ms.toFixed(0)).join(', ')} ms; file ${sides.file.ms.map((ms) => ms.toFixed(0)).join(', ')} ms; ${args.clones} at once ${fanMs.toFixed(0)} ms\n`,
  );
  const cpuLine = (c: typeof sshCpu) =>
    `client ${c.client} ms, Kiln's node processes ${c.node} ms, git under Kiln ${c.git} ms`;
  process.stdout.write(
    `CPU per clone (medians): ssh: ${cpuLine(sshCpu)}; file://: ${cpuLine(fileCpu)}\n`,
  );
  process.stdout.write(`${JSON.stringify({ figures })}\n`);
  process.exitCode = figures.every((figure) => figure.pass) ? 0 : 1;
} finally {
  await server?.stop().catch(() => {});
  await git.dispose();
  await rm(root, { recursive: true, force: true });
  clearTimeout(watchdog);
}
