/**
 * Debian's git-lfs against a real server: tracked files pushed and fetched back, the object
 * checked on upload (a wrong hash or a cut-short body keeps nothing), and the batch API's
 * answers for objects the repository has and has not.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LfsService } from '../../src/domain/lfs/lfs.service.ts';
import { LfsObjectStore } from '../../src/domain/lfs/lfs-object.store.ts';
import { LfsObjectFiles } from '../../src/storage/lfs-object-files.ts';
import { basic } from '../git/fixtures.ts';
import { type GitClient, noise, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import type { Person } from '../support/world.ts';
import { useWorld } from '../support/world.ts';
import {
  batchBody,
  filesUnder,
  installLfs,
  LFS_HEADERS,
  lfsWorkTree,
  oidOf,
} from './lfs-client.ts';

let kiln: TestServer;
let git: GitClient;
let owner: Person;
useWorld(
  { people: ['owner'], repos: [{ owner: 'owner', name: 'art', private: true }] },
  async (world) => {
    ({ kiln, git } = world);
    owner = world.people.owner;
    await installLfs(git);
  },
);

const lfsRoot = () => path.join(kiln.app.dataDir, 'lfs');
const url = (name: string) =>
  repoUrl(kiln.url, owner.user.handle, name, { token: owner.token, as: 'password' });
const api = (name: string, rest: string) =>
  `${kiln.url}/${owner.user.handle}/${name}.git/info/lfs/${rest}`;

describe('git lfs push and clone', () => {
  it('stores a multi-megabyte object and smudges it back in a clone elsewhere', async () => {
    const content = noise(3 * 1024 * 1024 + 17);
    const dir = await lfsWorkTree(git, url('art'));
    await git.commit(dir, { 'big.bin': content, 'notes.txt': 'plain\n' }, 'add a large file');
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir });

    const oid = oidOf(content);
    const stored = await readFile(path.join(lfsRoot(), oid.slice(0, 2), oid.slice(2, 4), oid));
    expect(stored.equals(content)).toBe(true);

    const clone = await git.clone(url('art'));
    expect((await readFile(path.join(clone, 'big.bin'))).equals(content)).toBe(true);
    // What git itself holds is the pointer, not the bytes.
    const blob = await git.ok(['cat-file', '-p', 'HEAD:big.bin'], { cwd: clone });
    expect(blob).toContain(`oid sha256:${oid}`);
  });

  it('answers a batch with no upload for what the repository has and downloads for it', async () => {
    const content = noise(4096);
    const dir = await git.clone(url('art'));
    await git.commit(dir, { 'small.bin': content });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir });
    const oid = oidOf(content);
    const missing = 'a'.repeat(64);
    const headers = { ...LFS_HEADERS, ...basic(owner.token) };
    const objects = [
      { oid, size: content.length },
      { oid: missing, size: 10 },
    ];
    const upload = await fetch(api('art', 'objects/batch'), {
      method: 'POST',
      headers,
      body: batchBody('upload', objects),
    });
    expect(upload.status).toBe(200);
    expect(upload.headers.get('content-type')).toContain('application/vnd.git-lfs+json');
    const up = (await upload.json()) as { objects: { oid: string; actions?: object }[] };
    expect(up.objects[0]).toEqual({ oid, size: content.length });
    expect(up.objects[1]?.actions).toHaveProperty('upload');
    expect(up.objects[1]?.actions).toHaveProperty('verify');

    // The address without `.git` is the same repository's.
    const bare = `${kiln.url}/${owner.user.handle}/art/info/lfs/objects/batch`;
    const withoutGit = await fetch(bare, {
      method: 'POST',
      headers,
      body: batchBody('upload', objects),
    });
    expect(await withoutGit.json()).toEqual(up);
    const download = await fetch(api('art', 'objects/batch'), {
      method: 'POST',
      headers,
      body: batchBody('download', objects),
    });
    const down = (await download.json()) as {
      objects: {
        actions?: { download: { href: string; header: Record<string, string> } };
        error?: { code: number };
      }[];
    };
    expect(down.objects[1]?.error?.code).toBe(404);
    const action = down.objects[0]?.actions?.download;
    expect(action?.href).toBe(api('art', `objects/${oid}`));
    const bytes = await fetch(action?.href ?? '', { headers: action?.header });
    expect(Buffer.from(await bytes.arrayBuffer()).equals(content)).toBe(true);
    // Whatever an object holds (HTML, say), a browser opening its address runs nothing of it.
    expect(bytes.headers.get('x-content-type-options')).toBe('nosniff');
    expect(bytes.headers.get('content-security-policy')).toContain('sandbox');
    // An interrupted download resumes where it stopped, as git-lfs asks.
    const rest = await fetch(action?.href ?? '', {
      headers: { ...action?.header, range: 'bytes=1000-' },
    });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(
      `bytes 1000-${content.length - 1}/${content.length}`,
    );
    expect(Buffer.from(await rest.arrayBuffer()).equals(content.subarray(1000))).toBe(true);
  });

  it('reads a whole batch with one query, however many objects it names', async () => {
    let queries = 0;
    const counted = kiln.app.database.db.withPlugin({
      transformQuery: (args) => {
        queries += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const lfs = new LfsService({
      store: new LfsObjectStore(counted, kiln.app.database.dialect),
      bytes: new LfsObjectFiles(lfsRoot()),
      maxFileSize: 0,
    });
    const repo = (await kiln.app.services.repos.get(owner.user, owner.user.handle, 'art')).repo;
    const objects = Array.from({ length: 1000 }, (_, i) => ({
      oid: oidOf(Buffer.from(String(i))),
      size: 1,
    }));
    const answers = await lfs.batch(repo, 'download', objects);
    expect(answers).toHaveLength(1000);
    expect(queries).toBe(1);
  });

  it('refuses oids that are not 64 lower-case hex digits, in a batch and as a path', async () => {
    const headers = { ...LFS_HEADERS, ...basic(owner.token) };
    const bad = ['../../etc/passwd', 'A'.repeat(64), 'a'.repeat(63), '', 'g'.repeat(64)];
    const answer = await fetch(api('art', 'objects/batch'), {
      method: 'POST',
      headers,
      body: batchBody(
        'upload',
        bad.map((oid) => ({ oid, size: 1 })),
      ),
    });
    const body = (await answer.json()) as { objects: { error?: { code: number } }[] };
    expect(body.objects.map((o) => o.error?.code)).toEqual(bad.map(() => 422));
    const put = await fetch(api('art', `objects/${'A'.repeat(64)}`), {
      method: 'PUT',
      headers: basic(owner.token),
      body: 'x',
    });
    expect(put.status).toBe(422);
  });
});

describe('downloads', () => {
  it('never serve an object as something a browser would render or run', async () => {
    const markup = fc.constantFrom(
      '<!doctype html><script>alert(1)</script>',
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
      '%PDF-1.4\n',
    );
    const contents = fc.oneof(
      fc.tuple(markup, fc.string()).map(([head, tail]) => Buffer.from(head + tail)),
      fc.uint8Array({ minLength: 1, maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
    );
    await fc.assert(
      fc.asyncProperty(contents, async (content) => {
        const oid = oidOf(content);
        const put = await fetch(api('art', `objects/${oid}`), {
          method: 'PUT',
          headers: { ...basic(owner.token), 'content-type': 'application/octet-stream' },
          body: new Uint8Array(content),
        });
        expect(put.status).toBe(200);
        const got = await fetch(api('art', `objects/${oid}`), { headers: basic(owner.token) });
        expect(Buffer.from(await got.arrayBuffer()).equals(content)).toBe(true);
        expect(got.headers.get('content-type')).toBe('application/octet-stream');
        expect(got.headers.get('x-content-type-options')).toBe('nosniff');
        expect(got.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      }),
      { numRuns: 15 },
    );
  });

  it('resumes a download from any offset and answers HEAD with the head alone', async () => {
    const content = randomBytes(2 * 1024 * 1024 + 5);
    const oid = oidOf(content);
    const put = await fetch(api('art', `objects/${oid}`), {
      method: 'PUT',
      headers: { ...basic(owner.token), 'content-type': 'application/octet-stream' },
      body: new Uint8Array(content),
    });
    expect(put.status).toBe(200);
    const at = (offset: number) =>
      fetch(api('art', `objects/${oid}`), {
        headers: { ...basic(owner.token), range: `bytes=${offset}-` },
      });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: content.length - 1 }), async (offset) => {
        const got = await at(offset);
        expect(got.status).toBe(206);
        expect(got.headers.get('content-range')).toBe(
          `bytes ${offset}-${content.length - 1}/${content.length}`,
        );
        expect(Buffer.from(await got.arrayBuffer()).equals(content.subarray(offset))).toBe(true);
      }),
      { numRuns: 8 },
    );
    const past = await at(content.length);
    expect(past.status).toBe(416);
    await past.arrayBuffer();
    const whole = await fetch(api('art', `objects/${oid}`), { headers: basic(owner.token) });
    expect(whole.headers.get('cache-control')).toMatch(/no-store/);
    expect(whole.headers.get('content-length')).toBe(String(content.length));
    expect(Buffer.from(await whole.arrayBuffer()).equals(content)).toBe(true);
    const head = await fetch(api('art', `objects/${oid}`), {
      method: 'HEAD',
      headers: basic(owner.token),
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(content.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });
});

describe('uploads that are not the object they claim', () => {
  it('refuses a body whose hash is not the oid and keeps nothing', async () => {
    const before = await filesUnder(lfsRoot());
    const content = noise(100_000);
    const claimed = oidOf(Buffer.from('something else'));
    const put = await fetch(api('art', `objects/${claimed}`), {
      method: 'PUT',
      headers: { ...basic(owner.token), 'content-type': 'application/octet-stream' },
      body: new Uint8Array(content),
    });
    expect(put.status).toBe(422);
    expect(((await put.json()) as { message: string }).message).toMatch(/does not match/);
    expect(await filesUnder(lfsRoot())).toEqual(before);
    const verify = await fetch(api('art', 'verify'), {
      method: 'POST',
      headers: { ...LFS_HEADERS, ...basic(owner.token) },
      body: JSON.stringify({ oid: claimed, size: content.length }),
    });
    expect(verify.status).toBe(404);
  });

  it('keeps nothing of an upload cut short', async () => {
    const before = await filesUnder(lfsRoot());
    const content = noise(2 * 1024 * 1024);
    const oid = oidOf(content);
    const { hostname, port } = new URL(kiln.url);
    const http = await import('node:http');
    await new Promise<void>((resolve) => {
      const request = http.request({
        host: hostname,
        port,
        method: 'PUT',
        path: `/${owner.user.handle}/art.git/info/lfs/objects/${oid}`,
        headers: { ...basic(owner.token), 'content-length': String(content.length) },
      });
      request.on('error', () => resolve());
      request.write(content.subarray(0, 1024 * 1024), () => {
        setTimeout(() => {
          request.destroy();
          resolve();
        }, 200);
      });
    });
    // The server notices the client going away a moment later.
    for (let i = 0; i < 50; i++) {
      if ((await filesUnder(lfsRoot())).length === before.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await filesUnder(lfsRoot())).toEqual(before);
    const verify = await fetch(api('art', 'verify'), {
      method: 'POST',
      headers: { ...LFS_HEADERS, ...basic(owner.token) },
      body: JSON.stringify({ oid, size: content.length }),
    });
    expect(verify.status).toBe(404);
  });
});
