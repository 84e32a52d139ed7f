/**
 * The cache service against the real client, `@actions/cache` 4.0.5, as `actions/cache@v4`
 * runs it off github.com: saves in parallel ranged parts, exact and prefix restores, a second
 * save of a key refused, and archive links that work without a bearer only when signed.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restoreCache, saveCache } from '@actions/cache';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { makeRepo } from '../git/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { endTask, runningTask } from './cache-support.ts';

let kiln: TestServer;
let owner: User;
let repoId: string;
const workspace = join(tmpdir(), `kiln-cache-${randomBytes(4).toString('hex')}`);
useWorld({ people: ['owner'] }, async (world) => {
  kiln = world.kiln;
  owner = world.people.owner.user;
  const { name } = await makeRepo(kiln, owner, { autoInit: true });
  repoId = (await kiln.app.services.repos.get(owner, owner.handle, name)).repo.id;
});

const saved = { ...process.env };
beforeAll(async () => {
  await mkdir(join(workspace, '.temp'), { recursive: true });
  process.env.GITHUB_WORKSPACE = workspace;
  // Where the client keeps its archives; a runner sets it for every step.
  process.env.RUNNER_TEMP = join(workspace, '.temp');
  delete process.env.ACTIONS_CACHE_SERVICE_V2;
  delete process.env.GITHUB_SERVER_URL;
});
afterAll(async () => {
  process.env = saved;
  await rm(workspace, { recursive: true, force: true });
});

/** Points the client at the server as a step of the task holding `token`. */
function actAs(token: string): void {
  process.env.ACTIONS_CACHE_URL = `${kiln.url}/api/actions_cache/`;
  process.env.ACTIONS_RUNTIME_TOKEN = token;
}

/** The archive link a lookup of `key` answers, asked as the task holding `token`. */
async function lookup(token: string, key: string, version: string) {
  const url = `${kiln.url}/api/actions_cache/_apis/artifactcache/cache?keys=${key}&version=${version}`;
  const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: answer.status, body: answer.status === 200 ? await answer.json() : undefined };
}

describe('actions/cache against the cache service', () => {
  it('saves in parallel parts and restores by exact key and by prefix', async () => {
    const { token, taskId } = await runningTask(kiln, repoId, { ref: 'refs/heads/main' });
    actAs(token);
    const dir = join(workspace, 'deps');
    const bytes = randomBytes(3 * 1024 * 1024 + 123);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'blob.bin'), bytes);
    const id = await saveCache([dir], 'deps-linux-abc', {
      uploadChunkSize: 256 * 1024,
      uploadConcurrency: 4,
    });
    expect(id).toBeGreaterThan(0);
    // A second save of the same key and version is refused, and the client carries on.
    expect(await saveCache([dir], 'deps-linux-abc')).toBe(-1);
    await endTask(kiln, taskId);

    const next = await runningTask(kiln, repoId, { ref: 'refs/heads/main' });
    actAs(next.token);
    await rm(dir, { recursive: true });
    expect(await restoreCache([dir], 'deps-linux-abc')).toBe('deps-linux-abc');
    expect((await readFile(join(dir, 'blob.bin'))).equals(bytes)).toBe(true);
    await rm(dir, { recursive: true });
    expect(await restoreCache([dir], 'deps-linux-xyz', ['DEPS-linux-'])).toBe('deps-linux-abc');
    expect((await readFile(join(dir, 'blob.bin'))).equals(bytes)).toBe(true);
    expect(await restoreCache([dir], 'other', ['nothing-'])).toBeUndefined();
  });

  it('serves archives only through signed, unexpired links, in ranges too', async () => {
    const { token } = await runningTask(kiln, repoId, { ref: 'refs/heads/links' });
    actAs(token);
    const dir = join(workspace, 'links');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'a.txt'), randomBytes(5000));
    await saveCache([dir], 'links-1');
    const rows = await kiln.app.database.db
      .selectFrom('ci_caches')
      .select('version')
      .where('cache_key', '=', 'links-1')
      .execute();
    const version = rows[0]?.version ?? '';
    const hit = await lookup(token, 'links-1', version);
    expect(hit.status).toBe(200);
    const location = new URL(hit.body.archiveLocation);
    const whole = await fetch(location);
    expect(whole.status).toBe(200);
    const archive = Buffer.from(await whole.arrayBuffer());
    const part = await fetch(location, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(archive.subarray(10, 20))).toBe(true);

    const sig = location.searchParams.get('sig') ?? '';
    const tampered = new URL(location);
    tampered.searchParams.set('sig', `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`);
    const later = new URL(location);
    later.searchParams.set('expires', String(Number(location.searchParams.get('expires')) + 60));
    const otherEntry = new URL(location);
    otherEntry.pathname = otherEntry.pathname.replace(/\d+$/, (id) => String(Number(id) + 1));
    const unsigned = new URL(location);
    unsigned.search = '';
    for (const url of [tampered, later, otherEntry, unsigned]) {
      expect((await fetch(url)).status).toBe(404);
    }
    // Lookups and uploads need a running task's bearer.
    expect((await lookup('0'.repeat(40), 'links-1', version)).status).toBe(401);
  });

  it('answers bad requests with 4xx and a message', async () => {
    const { token } = await runningTask(kiln, repoId, { ref: 'refs/heads/bad' });
    const base = `${kiln.url}/api/actions_cache/_apis/artifactcache`;
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const cases: [string, RequestInit][] = [
      ['/cache?keys=&version=abc', { headers: auth }],
      ['/cache?keys=a&version=', { headers: auth }],
      ['/caches', { method: 'POST', headers: json, body: '{"key":' }],
      ['/caches', { method: 'POST', headers: json, body: '{"key":"a","version":"b b"}' }],
      ['/caches/1', { method: 'PATCH', headers: { ...auth, 'content-range': 'bytes 5-1/*' } }],
      ['/caches/x', { method: 'POST', headers: json, body: '{"size":1}' }],
    ];
    for (const [path, init] of cases) {
      const answer = await fetch(`${base}${path}`, init);
      expect(answer.status, path).toBe(400);
      expect(((await answer.json()) as { message: string }).message).not.toBe('');
    }
  });

  it('answers generated hostile requests with a 4xx, never a 5xx', async () => {
    const { token } = await runningTask(kiln, repoId, { ref: 'refs/heads/hostile' });
    const base = `${kiln.url}/api/actions_cache/_apis/artifactcache`;
    const reserved = await fetch(`${base}/caches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'hostile', version: 'v1', cacheSize: 10 }),
    });
    const { cacheId } = (await reserved.json()) as { cacheId: number };
    const request = fc.oneof(
      fc.record({
        method: fc.constant('GET'),
        path: fc
          .tuple(fc.string(), fc.string())
          .map(
            ([keys, version]) =>
              `/cache?keys=${encodeURIComponent(keys)}&version=${encodeURIComponent(version)}`,
          ),
        headers: fc.constant({}),
        body: fc.constant(undefined),
      }),
      fc.record({
        method: fc.constantFrom('POST'),
        path: fc.constantFrom('/caches', `/caches/${cacheId}`, '/caches/0', '/caches/99999999'),
        headers: fc.constant({ 'content-type': 'application/json' }),
        body: fc.oneof(fc.string(), fc.json()),
      }),
      fc.record({
        method: fc.constant('PATCH'),
        path: fc.constantFrom(`/caches/${cacheId}`, '/caches/-1', '/caches/abc'),
        headers: fc
          .oneof(
            fc.string(),
            fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `bytes ${a}-${b}/*`),
          )
          .map((range) => ({ 'content-range': range, 'content-type': 'application/octet-stream' })),
        body: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async ({ method, path, headers, body }) => {
        const answer = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...headers },
          ...(body === undefined ? {} : { body }),
        });
        await answer.arrayBuffer();
        expect(answer.status, `${method} ${path}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });
});
