import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isDomainError } from '../domain/errors.ts';
import { runGit } from './command.ts';
import { GitError } from './git-error.ts';
import { decodePktLines, encodePktLine, FLUSH_PKT } from './pkt-line.ts';
import { findBranch, refExists, updateRef } from './refs.ts';
import { type RepoHandle, RepoPaths } from './repo-paths.ts';
import { initBare } from './repository.ts';
import {
  commitFiles,
  eventually,
  git,
  makeTempDir,
  processesIn,
  type TempDir,
} from './test-support.ts';
import {
  advertiseRefs,
  isGitService,
  isProbe,
  type PushResult,
  receivePack,
  sanitizeGitProtocol,
  uploadPack,
} from './transport.ts';

/**
 * Smart HTTP end to end: a bare-bones HTTP server (what src/http/git will do, minus auth) wired to
 * the transport functions, driven by the real git client and by hand-made requests.
 */

let tmp: TempDir;
let paths: RepoPaths;
let server: http.Server;
let base: string;
const pushes: PushResult[] = [];
let protectedRefs: string[] = [];
const ref = { owner: 'Alice', name: 'Tools' };
const handleOf = (repo: { owner: string; name: string }): RepoHandle => paths.resolve(repo);

function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const match = /^\/([^/]+)\/([^/]+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/.exec(
    url.pathname,
  );
  if (!match) {
    res.writeHead(404).end();
    return;
  }
  const repo = { owner: match[1]!, name: match[2]! };
  const options = {
    gitProtocol: req.headers['git-protocol'] as string | undefined,
    gzip: req.headers['content-encoding'] === 'gzip',
  };
  const fail = (error: unknown) => {
    if (res.headersSent) res.destroy();
    else res.writeHead(isDomainError(error) && error.code === 'not_found' ? 404 : 500).end();
  };
  const send = (service: string, output: NodeJS.ReadableStream) => {
    res.writeHead(200, {
      'content-type': `application/x-${service}-result`,
      'cache-control': 'no-cache',
    });
    pipeline(output, res, () => {});
  };
  if (match[3] === 'info/refs') {
    const service = url.searchParams.get('service');
    if (!isGitService(service)) {
      res.writeHead(403).end();
      return;
    }
    advertiseRefs(handleOf(repo), service, options).then((body) => {
      res.writeHead(200, {
        'content-type': `application/x-${service}-advertisement`,
        'cache-control': 'no-cache',
      });
      res.end(body);
    }, fail);
  } else if (match[3] === 'git-upload-pack') {
    uploadPack(handleOf(repo), req, options).then(
      (output) => send('git-upload-pack', output),
      fail,
    );
  } else {
    receivePack(handleOf(repo), req, { ...options, protectedRefs }).then(({ output, result }) => {
      send('git-receive-pack', output);
      void result.then((r) => pushes.push(r));
    }, fail);
  }
}

let url: string;
beforeAll(async () => {
  tmp = await makeTempDir();
  paths = new RepoPaths(path.join(tmp.path, 'repos'));
  await initBare(paths, handleOf(ref), { defaultBranch: 'main' });
  const repoPath = handleOf(ref).path;
  base = await commitFiles(repoPath, {
    branch: 'main',
    files: { 'README.md': '# tools\n', 'src/a.ts': 'a\n' },
  });
  await commitFiles(repoPath, {
    branch: 'big',
    files: { 'random.bin': randomBytes(6 * 1024 * 1024) },
  });
  await updateRef(handleOf(ref), 'refs/heads/doomed', base, null);
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/Alice/Tools.git`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await tmp.remove();
});
beforeEach(() => {
  pushes.length = 0;
  protectedRefs = [];
});

let n = 0;
const dir = () => path.join(tmp.path, `clone-${++n}`);

describe('clone and fetch', () => {
  for (const version of ['2', '0'] as const) {
    it(`clones over protocol v${version}`, async () => {
      const target = dir();
      await git(
        ['-c', `protocol.version=${version}`, 'clone', '--quiet', '--branch', 'main', url, target],
        { cwd: tmp.path },
      );
      expect(await readFile(path.join(target, 'src', 'a.ts'), 'utf8')).toBe('a\n');
      expect(await git(['rev-parse', 'HEAD'], { cwd: target })).toBe(base);
    });

    it(`serves a partial clone (--filter=blob:none) over protocol v${version}, blobs fetched lazily`, async () => {
      const target = dir();
      await git(
        [
          '-c',
          `protocol.version=${version}`,
          'clone',
          '--quiet',
          '--filter=blob:none',
          '--branch',
          'main',
          url,
          target,
        ],
        {
          cwd: tmp.path,
        },
      );
      expect(await readFile(path.join(target, 'README.md'), 'utf8')).toBe('# tools\n');
      await git(['-c', `protocol.version=${version}`, 'checkout', '--quiet', 'origin/big'], {
        cwd: target,
      });
      expect((await readFile(path.join(target, 'random.bin'))).length).toBe(6 * 1024 * 1024);
    });
  }

  it('announces the service for v0 and leaves it out for v2, as http-backend does', async () => {
    const v0 = Buffer.from(
      await (await fetch(`${url}/info/refs?service=git-upload-pack`)).arrayBuffer(),
    );
    expect(v0.subarray(0, 34).toString()).toBe('001e# service=git-upload-pack\n0000');
    const v2 = await fetch(`${url}/info/refs?service=git-upload-pack`, {
      headers: { 'git-protocol': 'version=2' },
    });
    expect((await v2.text()).startsWith('000eversion 2\n')).toBe(true);
    const hostile = await fetch(`${url}/info/refs?service=git-upload-pack`, {
      headers: { 'git-protocol': 'version=2x:evil' },
    });
    expect((await hostile.text()).startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
  });

  it('decompresses a gzip request body', async () => {
    const request = Buffer.concat([
      encodePktLine('command=ls-refs\n'),
      Buffer.from('0001'),
      encodePktLine('ref-prefix refs/heads/main\n'),
      FLUSH_PKT,
    ]);
    const response = await fetch(`${url}/git-upload-pack`, {
      method: 'POST',
      headers: {
        'git-protocol': 'version=2',
        'content-encoding': 'gzip',
        'content-type': 'application/x-git-upload-pack-request',
      },
      body: gzipSync(request),
    });
    expect(response.status).toBe(200);
    const packets = decodePktLines(Buffer.from(await response.arrayBuffer()));
    expect(packets).toEqual([
      { kind: 'data', payload: Buffer.from(`${base} refs/heads/main\n`) },
      { kind: 'flush' },
    ]);
  });

  it('answers 404 for a repository that does not exist, before any byte', async () => {
    const response = await fetch(
      `${url.replace('Tools', 'Nope')}/info/refs?service=git-upload-pack`,
    );
    expect(response.status).toBe(404);
    const post = await fetch(`${url.replace('Tools', 'Nope')}/git-upload-pack`, {
      method: 'POST',
      body: FLUSH_PKT,
    });
    expect(post.status).toBe(404);
  });
});

describe('push', () => {
  async function workClone() {
    const target = dir();
    await git(['clone', '--quiet', '--branch', 'main', url, target], { cwd: tmp.path });
    return target;
  }
  async function commit(work: string, file: string, amend = false) {
    await writeFile(path.join(work, file), `${file} ${n}\n`);
    await git(['add', file], { cwd: work });
    await git(['commit', '--quiet', ...(amend ? ['--amend'] : []), '-m', file], { cwd: work });
    return git(['rev-parse', 'HEAD'], { cwd: work });
  }
  const push = (work: string, args: string[]) =>
    git(['push', 'origin', ...args], { cwd: work }).then(
      () => '',
      (error: unknown) => (error instanceof GitError ? error.stderr : Promise.reject(error)),
    );

  it('reports the refs a push moved, created and deleted', async () => {
    const work = await workClone();
    const before = await git(['rev-parse', 'HEAD'], { cwd: work });
    const next = await commit(work, 'b.txt');
    await push(work, ['main']);
    await eventually(async () => pushes.length === 1);
    expect(pushes[0]).toEqual({
      changes: [{ ref: 'refs/heads/main', oldSha: before, newSha: next }],
      error: undefined,
    });

    await git(['branch', 'topic'], { cwd: work });
    await push(work, ['topic', ':doomed']);
    await eventually(async () => pushes.length === 2);
    expect(pushes[1]?.changes).toEqual([
      { ref: 'refs/heads/doomed', oldSha: base, newSha: null },
      { ref: 'refs/heads/topic', oldSha: null, newSha: next },
    ]);
    expect(await findBranch(handleOf(ref), 'doomed')).toBeUndefined();
  });

  it('refuses force-pushing and deleting a protected branch, and reports nothing moved', async () => {
    protectedRefs = ['refs/heads/main'];
    const work = await workClone();
    const tip = await git(['rev-parse', 'HEAD'], { cwd: work });
    await commit(work, 'c.txt', true);
    const forced = await push(work, ['--force', 'main']);
    expect(forced).toContain("kiln: refusing to force-push protected branch 'main'");
    const deleted = await push(work, [':main']);
    expect(deleted).toContain("kiln: refusing to delete protected branch 'main'");
    await eventually(async () => pushes.length === 2);
    expect(pushes.map((p) => p.changes)).toEqual([[], []]);
    expect(await findBranch(handleOf(ref), 'main')).toBe(tip);
  });

  it('does not let a push write a pull request ref', async () => {
    const work = await workClone();
    const output = await push(work, ['HEAD:refs/pull/1/head']);
    expect(output).toMatch(/deny updating a hidden ref|rejected/);
    expect(await refExists(handleOf(ref), 'refs/pull/1/head')).toBe(false);
    // Its result settles after git exits; wait for it, or a slow machine hands it to the next test.
    await eventually(async () => pushes.length === 1);
    expect(pushes[0]?.changes).toEqual([]);
  });
});

describe('client disconnects', () => {
  const repoPath = () => handleOf(ref).path;
  const onlyCatFile = async () =>
    (await processesIn(repoPath())).every((cmd) => cmd.includes('cat-file'));

  it('stops receive-pack when the client goes away mid-pack, and survives', async () => {
    const old = await findBranch(handleOf(ref), 'main');
    // A real pack (one large incompressible blob), of which the client sends only the start.
    const { stdout: pack } = await runGit(['pack-objects', '--stdout', '--revs', '--quiet'], {
      gitDir: repoPath(),
      input: 'refs/heads/big\n',
    });
    const request = http.request(`${url}/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-receive-pack-request' },
    });
    request.on('error', () => {});
    request.write(encodePktLine(`${old} ${'1'.repeat(40)} refs/heads/main\0report-status\n`));
    request.write(FLUSH_PKT);
    request.write(pack.subarray(0, pack.length / 3));
    await eventually(async () =>
      (await processesIn(repoPath())).some((cmd) => cmd.includes('receive-pack')),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pushes).toEqual([]);
    request.destroy();

    await eventually(async () => pushes.length === 1);
    expect(pushes[0]?.changes).toEqual([]);
    expect(pushes[0]?.error).toBeDefined();
    await eventually(onlyCatFile);
    expect(await findBranch(handleOf(ref), 'main')).toBe(old);
    // The quarantine directory went with it.
    expect(
      (await readdir(path.join(repoPath(), 'objects'))).filter((e) => e.startsWith('incoming-')),
    ).toEqual([]);
    // And the server still serves.
    await git(['clone', '--quiet', url, dir()], { cwd: tmp.path });
  });

  it('stops upload-pack when the client stops reading mid-pack', async () => {
    const bigTip = await findBranch(handleOf(ref), 'big');
    expect(bigTip).toBeDefined();
    const body = Buffer.concat([
      encodePktLine(`want ${bigTip}\n`),
      FLUSH_PKT,
      encodePktLine('done\n'),
    ]);
    await new Promise<void>((resolve, reject) => {
      const request = http.request(`${url}/git-upload-pack`, { method: 'POST' }, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', () => {});
      request.once('error', reject);
      request.end(body);
    });
    await eventually(onlyCatFile);
    await git(['ls-remote', url], { cwd: tmp.path });
  });
});

describe("git's probe", () => {
  it('is a flush packet alone, to which both services answer nothing', async () => {
    expect(isProbe(FLUSH_PKT)).toBe(true);
    expect(isProbe(Buffer.from('0001'))).toBe(false);
    const upload = await uploadPack(handleOf(ref), Readable.from([FLUSH_PKT]));
    expect(Buffer.concat(await upload.toArray())).toHaveLength(0);
    const push = await receivePack(handleOf(ref), Readable.from([FLUSH_PKT]));
    expect(Buffer.concat(await push.output.toArray())).toHaveLength(0);
    expect((await push.result).changes).toEqual([]);
  });
});

describe('sanitizeGitProtocol', () => {
  it('keeps only version items', () => {
    expect(sanitizeGitProtocol('version=2')).toBe('version=2');
    expect(sanitizeGitProtocol('version=1:version=1')).toBe('version=1');
    expect(sanitizeGitProtocol('version=2:object-format=sha1:evil=$(touch x)')).toBe('version=2');
    expect(sanitizeGitProtocol('version=3')).toBeUndefined();
    expect(sanitizeGitProtocol('version=2\nX: y')).toBeUndefined();
    expect(sanitizeGitProtocol(`version=2:${'x'.repeat(300)}`)).toBeUndefined();
    expect(sanitizeGitProtocol(undefined)).toBeUndefined();
  });
});
