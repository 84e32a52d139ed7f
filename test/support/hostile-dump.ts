/**
 * Hostile additions to a real Kiln dump, packed with GNU tar: every kind of hook, every config key
 * of git 2.39 that runs a program, alternates, attributes selecting drivers, paths outside the
 * dump, links and devices. Each program and hook, if it ever ran, would leave a file in `markers`.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';

/** Every hook git 2.39 knows (githooks(5)). */
export const HOOK_NAMES = [
  'applypatch-msg',
  'pre-applypatch',
  'post-applypatch',
  'pre-commit',
  'pre-merge-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-rebase',
  'post-checkout',
  'post-merge',
  'pre-push',
  'pre-receive',
  'update',
  'proc-receive',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'pre-auto-gc',
  'post-rewrite',
  'sendemail-validate',
  'fsmonitor-watchman',
  'p4-changelist',
  'p4-prepare-changelist',
  'p4-post-changelist',
  'p4-pre-submit',
  'post-index-change',
] as const;

/**
 * Config keys whose value git runs as a program (each given a script that leaves a marker), which
 * Kiln pins on every git's command line, or which git reads only from protected config.
 */
export const PROGRAM_KEYS = [
  'core.alternateRefsCommand',
  'core.fsmonitor',
  'core.pager',
  'pager.log',
  'core.editor',
  'sequence.editor',
  'core.askPass',
  'credential.helper',
  'core.sshCommand',
  'core.gitProxy',
  'diff.external',
  'uploadpack.packObjectsHook',
  'gpg.program',
  'gpg.ssh.program',
  'gpg.x509.program',
  'tar.tar.gz.command',
  'tar.tgz.command',
] as const;

/**
 * Drivers that attributes select (`.gitattributes` in a tree can name them): these keys cannot be
 * pinned on git's command line, under names of the repository's choosing, so only a config that
 * is Kiln's own keeps them out. A restore must drop them; they are not planted on disk.
 */
export const DRIVER_KEYS = [
  'diff.evil.command',
  'diff.evil.textconv',
  'filter.evil.clean',
  'filter.evil.smudge',
  'filter.evil.process',
  'merge.evil.driver',
] as const;

/** What one crafted dump adds to a repository of the real one. */
export type HostilePlan = {
  readonly hooks: readonly string[];
  readonly keys: readonly string[];
  /** core.hooksPath to a directory of marker hooks, and receive.procReceiveRefs. */
  readonly hooksPath: boolean;
  readonly extras: readonly Extra[];
};

export const EXTRAS = [
  'hook-symlink',
  'hook-directory',
  'alternates',
  'attributes',
  'dotdot',
  'absolute',
  'symlink-out',
  'through-symlink',
  'hardlink',
  'device',
  'fifo',
  'files-into-repository',
  'pid-file',
  'bad-refs',
  'bad-head',
  'control-name',
] as const;
export type Extra = (typeof EXTRAS)[number];

export const hostilePlan: fc.Arbitrary<HostilePlan> = fc.record({
  hooks: fc.subarray([...HOOK_NAMES], { minLength: 1 }),
  keys: fc.subarray([...PROGRAM_KEYS, ...DRIVER_KEYS], { minLength: 1 }),
  hooksPath: fc.boolean(),
  extras: fc.subarray([...EXTRAS]),
});

/** Everything at once: the described case. */
export const EVERYTHING: HostilePlan = {
  hooks: HOOK_NAMES,
  keys: [...PROGRAM_KEYS, ...DRIVER_KEYS],
  hooksPath: true,
  extras: EXTRAS,
};

/** A shell script that leaves `markers/<name>` and succeeds. */
export function markerScript(file: string, markers: string, name: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `#!/bin/sh\ntouch '${join(markers, name)}'\ncat >/dev/null 2>&1 </dev/null\n`,
  );
  chmodSync(file, 0o755);
}

/**
 * The config text for `plan`, its programs written under `outside`. `procReceive` adds
 * `receive.procReceiveRefs`: with Kiln's hooks directory there is no proc-receive hook to run, so
 * receive-pack refuses every push it covers instead; kept out where pushes must go through.
 */
export function hostileConfig(
  plan: HostilePlan,
  outside: string,
  markers: string,
  procReceive = true,
): string {
  const lines: string[] = [];
  for (const key of plan.keys) {
    const script = join(outside, 'bin', key);
    markerScript(script, markers, `config-${key}`);
    const [section, ...rest] = key.split('.');
    const name = rest.pop()!;
    lines.push(rest.length > 0 ? `[${section} "${rest.join('.')}"]` : `[${section}]`);
    lines.push(`\t${name} = ${script}`);
  }
  if (plan.hooksPath) {
    for (const hook of HOOK_NAMES) {
      markerScript(join(outside, 'hooks', hook), markers, `hooksPath-${hook}`);
    }
    lines.push('[core]', `\thooksPath = ${join(outside, 'hooks')}`);
    if (procReceive) lines.push('[receive]', '\tprocReceiveRefs = refs/heads');
  }
  return `${lines.join('\n')}\n`;
}

/** Puts `plan`'s hooks and config into a repository directory (a dump's, or one on disk). */
export function plantInRepository(
  repo: string,
  plan: HostilePlan,
  where: { outside: string; markers: string; procReceive: boolean; drivers: boolean },
) {
  const planted = where.drivers
    ? plan
    : {
        ...plan,
        keys: plan.keys.filter((key) => !(DRIVER_KEYS as readonly string[]).includes(key)),
      };
  for (const hook of plan.hooks) {
    markerScript(join(repo, 'hooks', hook), where.markers, `hook-${hook}`);
  }
  const config = hostileConfig(planted, where.outside, where.markers, where.procReceive);
  appendFileSync(join(repo, 'config'), config);
}

function run(command: string, args: readonly string[], cwd?: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}`);
}

/**
 * Builds a crafted dump from `base` (a real dump, unpacked) for `plan`, into `out`. The escapes
 * name files under `outside` that must never appear.
 */
export function craftDump(options: {
  base: string;
  order: readonly string[];
  repository: string;
  plan: HostilePlan;
  scratch: string;
  outside: string;
  markers: string;
  out: string;
}): void {
  const { plan, outside, markers } = options;
  const tree = join(options.scratch, 'tree');
  cpSync(options.base, tree, { recursive: true, verbatimSymlinks: true });
  const repo = join(tree, 'kiln-dump', 'repositories', options.repository);
  const files = join(tree, 'kiln-dump', 'files');
  mkdirSync(files, { recursive: true });
  const extra = new Set(plan.extras);
  plantInRepository(repo, plan, { outside, markers, procReceive: true, drivers: true });
  const transforms: string[] = [];
  if (extra.has('hook-symlink')) {
    markerScript(join(outside, 'linked-hook'), markers, 'hook-symlink');
    rmSync(join(repo, 'hooks', 'post-update'), { force: true });
    symlinkSync(join(outside, 'linked-hook'), join(repo, 'hooks', 'post-update'));
  }
  if (extra.has('hook-directory')) {
    rmSync(join(repo, 'hooks', 'pre-push'), { force: true });
    markerScript(join(repo, 'hooks', 'pre-push', 'inner'), markers, 'hook-directory');
  }
  if (extra.has('alternates')) {
    mkdirSync(join(outside, 'objects', 'info'), { recursive: true });
    writeFileSync(join(repo, 'objects', 'info', 'alternates'), `${join(outside, 'objects')}\n`);
    writeFileSync(join(repo, 'objects', 'info', 'http-alternates'), 'http://127.0.0.1:9/x\n');
  }
  if (extra.has('attributes')) {
    mkdirSync(join(repo, 'info'), { recursive: true });
    writeFileSync(join(repo, 'info', 'attributes'), '* diff=evil filter=evil merge=evil\n');
  }
  if (extra.has('dotdot')) {
    writeFileSync(join(tree, 'ESCAPE-DOTDOT'), 'escaped\n');
    transforms.push(`s,^ESCAPE-DOTDOT$,kiln-dump/repositories/../../../../../..${outside}/dotdot,`);
  }
  if (extra.has('absolute')) {
    writeFileSync(join(tree, 'ESCAPE-ABS'), 'escaped\n');
    transforms.push(`s,^ESCAPE-ABS$,${outside}/absolute,`);
  }
  if (extra.has('symlink-out')) {
    symlinkSync(outside, join(files, 'link-out'));
    symlinkSync(outside, join(repo, 'objects', 'linked'));
  }
  if (extra.has('through-symlink')) {
    symlinkSync(outside, join(files, 'through'));
    writeFileSync(join(tree, 'THROUGH'), 'escaped\n');
    transforms.push('s,^THROUGH$,kiln-dump/files/through/through-file,');
  }
  if (extra.has('hardlink')) {
    markerScript(join(files, 'original'), markers, 'hardlink');
    rmSync(join(repo, 'hooks', 'post-merge'), { force: true });
    linkSync(join(files, 'original'), join(repo, 'hooks', 'post-merge'));
  }
  if (extra.has('device')) run('mknod', [join(files, 'null-device'), 'c', '1', '3']);
  if (extra.has('fifo')) run('mkfifo', [join(repo, 'objects', 'fifo')]);
  if (extra.has('files-into-repository')) {
    const into = join(files, 'repositories', options.repository, 'hooks', 'post-receive');
    markerScript(into, markers, 'files-into-repository');
  }
  if (extra.has('pid-file')) writeFileSync(join(files, 'kiln.pid'), '1\n');
  if (extra.has('bad-refs')) {
    mkdirSync(join(repo, 'refs', 'heads'), { recursive: true });
    writeFileSync(join(repo, 'refs', 'heads', '-evil'), `${'a'.repeat(40)}\n`);
    appendFileSync(join(repo, 'packed-refs'), `${'b'.repeat(40)} refs/heads/bad..name\n`);
  }
  if (extra.has('control-name')) writeFileSync(join(files, '\u001b[31mred'), 'x');
  if (extra.has('bad-head')) writeFileSync(join(repo, 'HEAD'), 'ref: refs/heads/../../config\n');
  // The real dump's entries first, in order (manifest, then the database), then the rest.
  const order = options.order.map((entry) => entry.replace(/\/$/, ''));
  const listed = new Set(order);
  const added = walk(tree, '').filter((entry) => !listed.has(entry));
  const list = join(options.scratch, 'list');
  writeFileSync(list, [...order, ...added].join('\n'));
  run('tar', [
    '-cf',
    options.out,
    '--format=pax',
    '-P',
    '--no-recursion',
    ...transforms.map((t) => `--transform=${t}`),
    '-C',
    tree,
    '-T',
    list,
  ]);
}

function walk(root: string, relative: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    out.push(child);
    if (entry.isDirectory()) out.push(...walk(root, child));
  }
  return out;
}

/** The entries of a tar file, in order. */
export function tarEntries(file: string): string[] {
  const result = spawnSync('tar', ['-tf', file], { encoding: 'utf8' });
  return result.stdout.split('\n').filter((line) => line.length > 0);
}

/** Reads a small text file, or undefined. */
export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
