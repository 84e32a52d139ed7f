/**
 * Idle memory of `kiln serve` as users start it, through the `kiln` launcher (bin/kiln.js),
 * against the baseline the api bench measures (Node 24 started directly with the launcher's
 * flags, preload and environment), in the same run:
 *
 * - launcher on Node 24 (`npm start`, `npx kiln`, the systemd unit): the launcher replaces itself
 *   with Kiln, one process; target: its idle RSS ≤ 100 MB, and ≤ 1.05× the baseline;
 * - `kiln serve` as a command on a PATH whose `node` is older (the system's 20, when there is
 *   one): the shell lines atop the launcher hand it to Node 24 at once; target ≤ 100 MB, all its
 *   processes counted;
 * - `node bin/kiln.js serve` on that older Node: Kiln's process plus the launcher that stays as
 *   its parent, both counted; reported;
 * - `node src/main.ts serve` without the launcher's settings, as the documentation used to
 *   start Kiln; reported for scale.
 *
 * Each side starts three times, alternating, on one data dir already migrated; resident memory
 * (VmRSS) is read 3 s after the listening line, and medians are compared.
 *
 *   node bench/launcher.ts [--starts 3]
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEnv, startFlags } from './_start-flags.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({ options: { starts: { type: 'string', default: '3' } } });
const STARTS = Number(args.starts);
const ROOT = join(import.meta.dirname, '..');
const LAUNCHER = join(ROOT, 'bin', 'kiln.js');
const MAIN = join(ROOT, 'src', 'main.ts');

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-launcher-'));
const config = join(root, 'none.toml');
writeFileSync(config, '');
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  SERVICE_DATA_DIR: join(root, 'data'),
  SERVICE_HTTP_PORT: '0',
};

/** A Node older than 24 on PATH outside node_modules, or undefined. */
function olderNode(): string | undefined {
  const dirs = env.PATH.split(delimiter).filter((dir) => !dir.includes('node_modules'));
  for (const dir of [...dirs, '/usr/local/bin', '/usr/bin']) {
    const path = join(dir, 'node');
    if (!existsSync(path)) continue;
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout;
    const major = Number(/^v(\d+)\./.exec(version)?.[1]);
    if (major >= 20 && major < 24) return path;
  }
  return undefined;
}

type Side = { name: string; node: string; argv: string[]; env: Record<string, string> };

/** Resident memory of a process and all its descendants, in MB. */
function treeRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const own = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  const theirs =
    children === '' ? [] : children.split(' ').map((child) => treeRssMb(Number(child)));
  return own + theirs.reduce((sum, mb) => sum + mb, 0);
}

async function idleRss(side: Side): Promise<number> {
  const child: ChildProcess = spawn(side.node, side.argv, {
    cwd: ROOT,
    env: { ...env, ...side.env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('listening on ')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${side.name} exited with ${code}`)));
  });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const mb = treeRssMb(child.pid ?? 0);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return mb;
}

const serveArgs = ['serve', '--config', config];
const older = olderNode();
/** A directory holding only the `kiln` command, as `ln -s …/bin/kiln.js /usr/local/bin/kiln` makes. */
const commandDir = join(root, 'bin');
mkdirSync(commandDir);
symlinkSync(LAUNCHER, join(commandDir, 'kiln'));
const sides: Side[] = [
  {
    name: 'direct',
    node: process.execPath,
    argv: [...startFlags(), MAIN, ...serveArgs],
    env: startEnv(),
  },
  { name: 'launcher-24', node: process.execPath, argv: [LAUNCHER, ...serveArgs], env: {} },
  ...(older
    ? [
        {
          name: 'command',
          node: join(commandDir, 'kiln'),
          argv: serveArgs,
          env: { PATH: [commandDir, dirname(older), '/usr/bin', '/bin'].join(delimiter) },
        },
        { name: 'launcher-older', node: older, argv: [LAUNCHER, ...serveArgs], env: {} },
      ]
    : []),
  { name: 'plain', node: process.execPath, argv: [MAIN, ...serveArgs], env: {} },
];

const olderVersion = older
  ? spawnSync(older, ['--version'], { encoding: 'utf8' }).stdout.trim()
  : 'none';

try {
  // Migrates the data dir and fills the compile cache, so no side pays for either.
  await idleRss(sides[1] as Side);
  const samples = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  for (let round = 0; round < STARTS; round += 1) {
    for (const side of sides) samples.get(side.name)?.push(await idleRss(side));
  }
  const at = (name: string) => median(samples.get(name) ?? []);
  for (const side of sides) {
    const mbs = (samples.get(side.name) ?? []).map((mb) => mb.toFixed(1)).join(', ');
    process.stdout.write(`${side.name.padEnd(16)}${mbs} MB (median ${at(side.name).toFixed(1)})\n`);
  }
  const figures = [
    {
      name: `idle RSS, kiln serve through the launcher on Node 24 (one process), median of ${STARTS} starts`,
      target: '≤ 100',
      measured: Number(at('launcher-24').toFixed(1)),
      unit: 'MB',
      pass: at('launcher-24') <= 100,
    },
    {
      name: 'idle RSS, launcher on Node 24 ÷ Node 24 started directly with the same settings',
      target: '≤ 1.05',
      measured: Number((at('launcher-24') / at('direct')).toFixed(2)),
      unit: '×',
      pass: at('launcher-24') / at('direct') <= 1.05,
    },
    ...(older
      ? [
          {
            name: `idle RSS, kiln serve as a command on a PATH whose node is ${olderVersion}, all its processes`,
            target: '≤ 100',
            measured: Number(at('command').toFixed(1)),
            unit: 'MB',
            pass: at('command') <= 100,
          },
          {
            name: `idle RSS, node bin/kiln.js serve on ${olderVersion}: launcher (parent) and Kiln (child)`,
            target: 'reported',
            measured: Number(at('launcher-older').toFixed(1)),
            unit: 'MB',
            pass: true,
          },
        ]
      : []),
    {
      name: 'idle RSS, node src/main.ts serve without the launcher’s settings',
      target: 'reported',
      measured: Number(at('plain').toFixed(1)),
      unit: 'MB',
      pass: true,
    },
  ];
  process.stdout.write(`${JSON.stringify({ figures })}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
