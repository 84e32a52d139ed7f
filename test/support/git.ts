import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

/**
 * The real `git` client for black-box suites, run the way a user's machine would run it but
 * isolated: its own HOME with a small global config, no system config, no prompts, no credential
 * helpers, a fixed identity. Every suite makes its own `GitClient` and disposes of it.
 */

export type GitRun = {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
};

export type GitRunOptions = {
  /** Working directory (a work tree, or anywhere for `clone`). Defaults to the client's scratch dir. */
  cwd?: string;
  /** Extra environment, e.g. `GIT_TRACE_CURL` or `GIT_PROTOCOL` experiments. */
  env?: Record<string, string>;
  input?: string | Buffer;
  /** Kill git after this long (default 120 s) so a hung transfer fails the test, not the run. */
  timeoutMs?: number;
  /**
   * Start git in a process group of its own (`spawn` only), so that `killGroup` stops it with
   * every helper it started (remote-http, send-pack, pack-objects), as a dying client would.
   */
  group?: boolean;
};

/** How a personal access token travels in a clone URL. */
export type UrlCredentials = { readonly token: string; readonly as: 'username' | 'password' };

const GLOBAL_CONFIG = [
  '[user]',
  '\tname = Kiln Tester',
  '\temail = tester@example.test',
  '[init]',
  '\tdefaultBranch = main',
  '[advice]',
  '\tdetachedHead = false',
  '[credential]',
  '\thelper =',
  '[gc]',
  '\tauto = 0',
  '',
].join('\n');

/**
 * `{base}/{owner}/{name}.git` with the token as URL username (and an explicit empty password, so
 * git asks nobody for one) or as password (with a throwaway username).
 */
export function repoUrl(
  base: string,
  owner: string,
  name: string,
  credentials?: UrlCredentials,
  suffix = '.git',
): string {
  const url = new URL(`${base}/${owner}/${name}${suffix}`);
  if (credentials?.as === 'username') return url.href.replace('//', `//${credentials.token}:@`);
  if (credentials?.as === 'password') {
    url.username = 'kiln-user';
    url.password = credentials.token;
  }
  return url.href;
}

export class GitClient {
  /** Scratch directory: HOME lives here, and so do work trees made by `tempDir`. */
  readonly root: string;
  readonly env: Readonly<Record<string, string>>;

  private constructor(root: string) {
    this.root = root;
    const home = path.join(root, 'home');
    this.env = Object.freeze({
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      TMPDIR: process.env.TMPDIR ?? tmpdir(),
      LANG: 'C',
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
      SSH_ASKPASS: '',
    });
  }

  /** A client with a fresh HOME under the system temp directory. */
  static async create(): Promise<GitClient> {
    const root = await mkdtemp(path.join(tmpdir(), 'kiln-gitclient-'));
    await mkdir(path.join(root, 'home', '.config'), { recursive: true });
    await writeFile(path.join(root, 'home', '.gitconfig'), GLOBAL_CONFIG);
    return new GitClient(root);
  }

  /** A new empty directory inside the scratch directory. */
  async tempDir(prefix = 'dir-'): Promise<string> {
    return mkdtemp(path.join(this.root, prefix));
  }

  /** Starts git and hands back the process, for tests that interrupt a transfer. */
  spawn(
    args: readonly string[],
    options: GitRunOptions = {},
  ): ChildProcessByStdio<Writable, Readable, Readable> {
    return spawn('git', args, {
      cwd: options.cwd ?? this.root,
      env: { ...this.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: options.group === true,
    });
  }

  /** SIGKILL to a process started with `group: true` and everything it started. */
  killGroup(child: { pid?: number | undefined }): void {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** Runs git to the end; never throws on a non-zero exit (the result says how it went). */
  run(args: readonly string[], options: GitRunOptions = {}): Promise<GitRun> {
    return new Promise((resolve, reject) => {
      const child = this.spawn(args, options);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.stdin.on('error', () => {});
      child.stdin.end(options.input);
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({
          code,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
        });
      });
    });
  }

  /** Runs git and returns trimmed stdout; throws with git's stderr when it fails. */
  async ok(args: readonly string[], options: GitRunOptions = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0) {
      throw new Error(`git ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
    }
    return result.stdout.trim();
  }

  /** Runs git expecting failure; throws when it succeeds. */
  async fails(args: readonly string[], options: GitRunOptions = {}): Promise<GitRun> {
    const result = await this.run(args, options);
    if (result.code === 0) throw new Error(`git ${args.join(' ')} unexpectedly succeeded`);
    return result;
  }

  /** A fresh work tree with `main` checked out and nothing committed. */
  async init(branch = 'main'): Promise<string> {
    const dir = await this.tempDir('work-');
    await this.ok(['init', '-q', `--initial-branch=${branch}`, dir]);
    return dir;
  }

  /** Writes `files` into the work tree, commits everything and returns the new commit id. */
  async commit(
    dir: string,
    files: Record<string, string | Buffer>,
    message = 'change',
  ): Promise<string> {
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(dir, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
    }
    await this.ok(['add', '-A'], { cwd: dir });
    await this.ok(['commit', '-q', '--allow-empty', '-m', message], { cwd: dir });
    return this.ok(['rev-parse', 'HEAD'], { cwd: dir });
  }

  /**
   * `count` commits on the checked-out branch, each rewriting `{prefix}.txt`, written by one
   * `git fast-import` (fast even for thousands); the work tree is reset to the new tip.
   */
  async commitMany(dir: string, count: number, prefix = 'c'): Promise<string> {
    const branch = await this.ok(['symbolic-ref', '--short', 'HEAD'], { cwd: dir });
    const head = await this.run(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: dir });
    const parts: string[] = [];
    const start = Math.floor(Date.now() / 1000);
    for (let i = 0; i < count; i++) {
      const message = `${prefix} ${i}\n`;
      const content = `${prefix} ${i}\n`;
      parts.push(
        `commit refs/heads/${branch}\n`,
        `committer Kiln Tester <tester@example.test> ${start + i} +0000\n`,
        `data ${Buffer.byteLength(message)}\n${message}`,
        i === 0 && head.code === 0 ? `from ${head.stdout.trim()}\n` : '',
        `M 100644 inline ${prefix}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`,
      );
    }
    await this.ok(['fast-import', '--quiet'], { cwd: dir, input: parts.join('') });
    await this.ok(['reset', '-q', '--hard', branch], { cwd: dir });
    return this.ok(['rev-parse', 'HEAD'], { cwd: dir });
  }

  /** `git clone` into a new directory; returns the directory. Throws when the clone fails. */
  async clone(url: string, extra: readonly string[] = [], options: GitRunOptions = {}) {
    const dir = path.join(await this.tempDir('clone-'), 'repo');
    await this.ok(['clone', '-q', ...extra, url, dir], options);
    return dir;
  }

  /** Removes the scratch directory and everything in it. */
  async dispose(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

/** Bytes that do not compress: test content that keeps packs as large as they look. */
export function noise(bytes: number): Buffer {
  return randomBytes(bytes);
}

export type SyntheticHistory = {
  /** Number of commits, in one line of history on `branch`. */
  readonly commits: number;
  /** Bytes of fresh random content per commit (one new file each), so packs stay this big. */
  readonly bytesPerCommit: number;
  readonly branch?: string;
};

/**
 * The input of `git fast-import` for a synthetic history: each commit adds one file of random
 * bytes and rewrites a small text file, so there are deltas to find as well as bulk to move.
 */
export function syntheticHistory(options: SyntheticHistory): Buffer {
  const branch = options.branch ?? 'main';
  const parts: Buffer[] = [];
  const start = 1_700_000_000;
  for (let i = 0; i < options.commits; i++) {
    const blob = noise(options.bytesPerCommit);
    const log = Buffer.from(`commit ${i}\n`.repeat(1 + (i % 50)));
    const message = `synthetic commit ${i}\n`;
    parts.push(
      Buffer.from(
        `commit refs/heads/${branch}\n` +
          `committer Kiln Tester <tester@example.test> ${start + i * 60} +0000\n` +
          `data ${message.length}\n${message}` +
          `M 100644 inline data/${String(i).padStart(5, '0')}.bin\ndata ${blob.length}\n`,
      ),
      blob,
      Buffer.from(`\nM 100644 inline log.txt\ndata ${log.length}\n`),
      log,
      Buffer.from('\n\n'),
    );
  }
  return Buffer.concat(parts);
}

/** Writes a synthetic history into a repository (bare or not) with one `git fast-import`. */
export async function importSyntheticHistory(
  git: GitClient,
  gitDir: string,
  options: SyntheticHistory,
): Promise<string> {
  const branch = options.branch ?? 'main';
  await git.ok(['--git-dir', gitDir, 'fast-import', '--quiet'], {
    input: syntheticHistory(options),
    timeoutMs: 300_000,
  });
  return git.ok(['--git-dir', gitDir, 'rev-parse', `refs/heads/${branch}`]);
}
