/**
 * Shared by the benches that serve git (not a bench itself: bench/run.ts skips `_*.ts`): their
 * command line, a synthetic repository of a given size seeded into Kiln, clones of it at once,
 * `git http-backend` behind a minimal Node server as the reference, the resident memory of a
 * server and the processes it started, and the figures' lines.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { access, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { residentBytes, type ServerProcess } from '../test/git/server-process.ts';
import { type GitClient, importSyntheticHistory, repoUrl } from '../test/support/git.ts';

export const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A bare repository at `gitDir` holding `commits` commits of random bytes (`megabytes` in all, so
 * nothing compresses away; see `syntheticHistory`), repacked into one pack. Returns the tip and
 * the packs' size in bytes.
 */
export async function syntheticRepository(
  git: GitClient,
  gitDir: string,
  options: { commits: number; megabytes: number },
): Promise<{ tip: string; bytes: number; packs: number }> {
  await git.ok(['init', '-q', '--bare', gitDir]);
  const tip = await importSyntheticHistory(git, gitDir, {
    commits: options.commits,
    bytesPerCommit: Math.round((options.megabytes * MB) / options.commits),
  });
  await git.ok(['--git-dir', gitDir, 'repack', '-a', '-d', '-q'], { timeoutMs: 300_000 });
  const packDir = join(gitDir, 'objects', 'pack');
  const packs = (await readdir(packDir)).filter((f) => f.endsWith('.pack'));
  const bytes = packs.reduce((sum, f) => sum + statSync(join(packDir, f)).size, 0);
  return { tip, bytes, packs: packs.length };
}

/**
 * `git http-backend` as CGI behind a plain Node HTTP server on 127.0.0.1, streaming both ways,
 * serving every repository under `projectRoot`. Git gets no global or system configuration, as
 * Kiln's git does not.
 */
export function startHttpBackend(projectRoot: string): Promise<{ url: string; close: () => void }> {
  const backend = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://backend');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'bench',
        REMOTE_ADDR: '127.0.0.1',
        REQUEST_METHOD: request.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    request.pipe(cgi.stdin);
    cgi.stdin.on('error', () => {});
    let head: Buffer | undefined = Buffer.alloc(0);
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (!head) {
        if (!response.write(chunk)) cgi.stdout.pause();
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon);
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else response.setHeader(name, value);
      }
      response.writeHead(status);
      const rest = head.subarray(end + 4);
      head = undefined;
      if (!response.write(rest)) cgi.stdout.pause();
    });
    response.on('drain', () => cgi.stdout.resume());
    cgi.stdout.on('end', () => response.end());
  });
  return new Promise((resolve) =>
    backend.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
        close: () => backend.close(),
      }),
    ),
  );
}

/** Pids of the direct children of `pid` (Linux /proc), whichever of its threads started them. */
async function children(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const listed = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    found.push(...listed.split(' ').filter(Boolean).map(Number));
  }
  return found;
}

/** Pids of every descendant of `pid`: the processes a server runs. */
export async function descendants(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const child of await children(pid)) {
    found.push(child, ...(await descendants(child)));
  }
  return found;
}

/** Whether a process is git (any of its commands); false once it has gone. */
export async function isGit(pid: number): Promise<boolean> {
  const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
  return comm.startsWith('git');
}

export type MemoryPeaks = {
  /** The server process itself. */
  server: number;
  /** The server and its direct children that are not git (Kiln's git spawner), summed. */
  node: number;
  /** Every other process under the server (git), summed. */
  git: number;
  /** Every descendant of the server, git or not, summed. */
  children: number;
};

/**
 * Samples the resident memory (VmRSS) of the server `pid` and its descendants every `intervalMs`
 * until the returned stop, which resolves to the peaks of each sum.
 */
export function sampleMemory(pid: number, intervalMs = 10): () => Promise<MemoryPeaks> {
  const peaks: MemoryPeaks = { server: 0, node: 0, git: 0, children: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const server = (await residentBytes(pid)) ?? 0;
      let node = server;
      let git = 0;
      for (const child of await children(pid)) {
        const bytes = (await residentBytes(child)) ?? 0;
        if (await isGit(child)) git += bytes;
        else node += bytes;
        // Below a helper everything is git, a process forked a moment ago (still a copy of its
        // parent until it executes git) included.
        for (const below of await descendants(child)) git += (await residentBytes(below)) ?? 0;
      }
      peaks.server = Math.max(peaks.server, server);
      peaks.node = Math.max(peaks.node, node);
      peaks.git = Math.max(peaks.git, git);
      peaks.children = Math.max(peaks.children, node - server + git);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return peaks;
  };
}

/**
 * Waits until Kiln's housekeeping after the push has written its commit-graph and no git runs
 * under Kiln for a second (at most two minutes), so that no round shares the machine with it.
 */
export async function housekeepingDone(pid: number, gitDir: string): Promise<void> {
  const end = Date.now() + 120_000;
  let quiet = 0;
  while (Date.now() < end && quiet < 4) {
    const graph = await Promise.any([
      access(join(gitDir, 'objects', 'info', 'commit-graphs', 'commit-graph-chain')),
      access(join(gitDir, 'objects', 'info', 'commit-graph')),
    ]).then(
      () => true,
      () => false,
    );
    const busy = (await Promise.all((await descendants(pid)).map(isGit))).some(Boolean);
    quiet = graph && !busy ? quiet + 1 : 0;
    await sleep(250);
  }
}

/** What a clone bench is told on its command line. */
export type CloneBenchArgs = {
  readonly rounds: number;
  readonly clones: number;
  readonly megabytes: number;
  readonly commits: number;
};

/** `--rounds`, `--clones`, `--megabytes` (50) and `--commits` (300), with the bench's defaults. */
export function cloneBenchArgs(defaults: { rounds: number; clones?: number }): CloneBenchArgs {
  const option = (fallback: number) => ({ type: 'string', default: String(fallback) }) as const;
  const { values } = parseArgs({
    options: {
      rounds: option(defaults.rounds),
      clones: option(defaults.clones ?? 50),
      megabytes: option(50),
      commits: option(300),
    },
  });
  return {
    rounds: Number(values.rounds),
    clones: Number(values.clones),
    megabytes: Number(values.megabytes),
    commits: Number(values.commits),
  };
}

/**
 * The repository the clones read: a synthetic one made at `source` (`syntheticRepository`),
 * pushed over HTTP into a new repository `served` of `owner` on the running Kiln, returned once
 * Kiln's housekeeping after that push is done. `served` is its bare directory in `dataDir`.
 */
export async function seedServedRepository(
  git: GitClient,
  server: ServerProcess,
  seed: CloneBenchArgs & { token: string; owner: string; source: string; dataDir: string },
): Promise<{ tip: string; bytes: number; packs: number; served: string }> {
  const repository = await syntheticRepository(git, seed.source, seed);
  const created = await fetch(`${server.url}/api/v1/user/repos`, {
    method: 'POST',
    headers: { authorization: `token ${seed.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'served' }),
  });
  if (created.status !== 201) throw new Error(`creating the repository: ${created.status}`);
  const pushUrl = repoUrl(server.url, seed.owner, 'served', { token: seed.token, as: 'password' });
  await git.ok(['--git-dir', seed.source, 'push', '-q', pushUrl, 'main'], { timeoutMs: 300_000 });
  const served = join(seed.dataDir, 'repositories', seed.owner, 'served.git');
  await housekeepingDone(server.pid, served);
  return { ...repository, served };
}

/**
 * Starts `count` bare clones of `url` at once into `root`; the wall ms until the last has
 * finished. Every clone must succeed and end on `tip`; all are removed afterwards.
 */
export async function cloneAtOnce(
  git: GitClient,
  root: string,
  clone: { url: string; tag: string; tip: string; count?: number; env?: Record<string, string> },
): Promise<number> {
  const { tag, tip } = clone;
  const dirs = Array.from({ length: clone.count ?? 1 }, (_, i) => join(root, `${tag}-${i}`));
  const started = performance.now();
  const results = await Promise.all(
    dirs.map((dir) =>
      git.run(['clone', '-q', '--bare', clone.url, dir], {
        cwd: root,
        timeoutMs: 300_000,
        ...(clone.env ? { env: clone.env } : {}),
      }),
    ),
  );
  const ms = performance.now() - started;
  try {
    for (const [i, result] of results.entries()) {
      if (result.code !== 0) throw new Error(`${tag}: clone ${i} failed:\n${result.stderr}`);
      const head = await git.ok(['--git-dir', dirs[i] ?? '', 'rev-parse', 'HEAD']);
      if (head !== tip) throw new Error(`${tag}: clone ${i} ended on ${head}, not ${tip}`);
    }
  } finally {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
  return ms;
}

/** Prints each figure on a line: met or MISSED, its value and its target. */
export function printFigures(
  figures: ReadonlyArray<{
    name: string;
    target: string;
    measured: number;
    unit: string;
    pass: boolean;
  }>,
): void {
  for (const figure of figures) {
    const unit = figure.unit === 'ratio' ? '' : ` ${figure.unit}`;
    process.stdout.write(
      `${figure.pass ? 'met   ' : 'MISSED'} ${figure.name}: ${figure.measured}${unit} (target ${figure.target})\n`,
    );
  }
}
