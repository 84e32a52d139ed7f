/**
 * The pipeline protocol of upload-artifact/download-artifact v1–v3, spoken by the real client
 * (`@actions/artifact` 1.1.2) with a running task's token: files small and large, gzip-encoded
 * and not, chunked, come back byte for byte; REST lists the artifact and serves its zip; a task
 * reaches only its own run, nothing once it has ended, and a repository's quota holds.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { create } from 'artifact-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { restoreEnvironmentAfterSuite } from '../support/environment.ts';
import type { GitClient } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { actAsTask, claimTask } from './support.ts';

restoreEnvironmentAfterSuite();

const QUOTA = 24 * 1024 * 1024;

let kiln: TestServer;
let git: GitClient;
let dir: string;
useWorld({ env: { SERVICE_CI_ARTIFACT_MAX_BYTES_PER_REPO: String(QUOTA) } }, (world) => {
  ({ kiln, git } = world);
});
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kiln-artifacts-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const pipelineUrl = (run: number, rest = '') =>
  `${kiln.url}/api/actions_pipeline/_apis/pipelines/workflows/${run}/artifacts${rest}?api-version=6.0-preview`;

describe('the pipeline artifact protocol', () => {
  it('carries files through the real client and shows them in REST', async () => {
    const claimed = await claimTask(kiln, git, 'art-box');
    const source = join(dir, 'source');
    await mkdir(join(source, 'sub'), { recursive: true });
    const files = {
      'small.txt': Buffer.from('hello artifacts\n'),
      'sub/squeezable.log': Buffer.from('line of a log\n'.repeat(80_000)),
      'sub/noise.bin': randomBytes(9 * 1024 * 1024 + 17),
    };
    for (const [path, bytes] of Object.entries(files)) await writeFile(join(source, path), bytes);
    actAsTask(kiln, claimed, source);

    const client = create();
    const uploaded = await client.uploadArtifact(
      'build-output',
      Object.keys(files).map((path) => join(source, path)),
      source,
      { retentionDays: 3 },
    );
    expect(uploaded.failedItems).toEqual([]);
    const target = join(dir, 'target');
    const downloaded = await client.downloadArtifact('build-output', target);
    expect(downloaded.artifactName).toBe('build-output');
    for (const [path, bytes] of Object.entries(files)) {
      expect((await readFile(join(target, path))).equals(bytes), path).toBe(true);
    }

    const listed = await apiCall(kiln.url, `/repos/${claimed.repo}/actions/runs/1/artifacts`);
    expect(listed.status).toBe(200);
    expect(listed.body.total_count).toBe(1);
    const [artifact] = listed.body.artifacts;
    expect(artifact).toMatchObject({ name: 'build-output', expired: false });
    expect(artifact.size_in_bytes).toBeGreaterThan(9 * 1024 * 1024);
    const days = (Date.parse(artifact.expires_at) - Date.parse(artifact.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(3, 3);
    const all = await apiCall(kiln.url, `/repos/${claimed.repo}/actions/artifacts`);
    expect(all.body.artifacts.map((a: { id: number }) => a.id)).toEqual([artifact.id]);

    const zip = await fetch(artifact.archive_download_url);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    await writeFile(join(dir, 'a.zip'), Buffer.from(await zip.arrayBuffer()));
    await promisify(execFile)('unzip', ['-q', 'a.zip', '-d', 'unzipped'], { cwd: dir });
    for (const [path, bytes] of Object.entries(files)) {
      expect((await readFile(join(dir, 'unzipped', path))).equals(bytes), path).toBe(true);
    }

    // The run page lists it with its size and a link to the same zip.
    const page = await (await fetch(`${kiln.url}/repos/${claimed.repo}/actions/runs/1`)).text();
    const link = `/repos/${claimed.repo}/actions/runs/1/artifacts/${artifact.id}`;
    expect(page).toContain(`href="${link}"`);
    expect(page).toMatch(/build-output<\/a>[\s\S]*?[0-9.]+ MB/);
    const fromPage = await fetch(`${kiln.url}${link}`);
    expect(fromPage.status).toBe(200);
    expect((await fromPage.arrayBuffer()).byteLength).toBeGreaterThan(10 * 1024 * 1024);
    expect(
      (await fetch(`${kiln.url}/repos/${claimed.repo}/actions/runs/2/artifacts/${artifact.id}`))
        .status,
    ).toBe(404);

    // Deleting is for writers; afterwards it is gone from the run.
    const { token: stranger } = await kiln.make.userWithToken();
    const refused = await apiCall(kiln.url, new URL(artifact.url).pathname.slice(7), {
      method: 'DELETE',
      token: stranger,
    });
    expect(refused.status).toBe(403);
    const deleted = await apiCall(kiln.url, new URL(artifact.url).pathname.slice(7), {
      method: 'DELETE',
      token: claimed.token,
    });
    expect(deleted.status).toBe(204);
    expect(
      (await apiCall(kiln.url, `/repos/${claimed.repo}/actions/runs/1/artifacts`)).body,
    ).toEqual({ artifacts: [], total_count: 0 });
    await claimed.runner.run(claimed.task, { steps: [{ lines: ['ok'], result: Result.SUCCESS }] });
  });

  it('holds a task to its own run, its repository to its quota, and ends with the task', async () => {
    const mine = await claimTask(kiln, git, 'art-mine', { private: true });
    const theirs = await claimTask(kiln, git, 'art-theirs');
    const call = (token: string, url: string, init: RequestInit = {}) =>
      fetch(url, {
        ...init,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...init.headers,
        },
      });
    const made = await call(mine.taskToken, pipelineUrl(1), {
      method: 'POST',
      body: JSON.stringify({ Type: 'actions_storage', Name: 'secret-build' }),
    });
    expect(made.status).toBe(201);
    const { containerId, fileContainerResourceUrl } = (await made.json()) as {
      containerId: number;
      fileContainerResourceUrl: string;
    };
    const put = (
      token: string,
      range: string,
      body: Uint8Array<ArrayBuffer>,
      path = 'secret-build/a.txt',
    ) =>
      call(token, `${fileContainerResourceUrl}?itemPath=${encodeURIComponent(path)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', 'content-range': range },
        body,
      });
    expect((await put(mine.taskToken, 'bytes 0-4/5', Buffer.from('hello'))).status).toBe(200);

    // Another task's token: its URL names its own run 1, yet this container is not of that run.
    expect(
      (await put(theirs.taskToken, 'bytes 0-4/5', Buffer.from('HIJACK'.slice(0, 5)))).status,
    ).toBe(404);
    const items = await call(theirs.taskToken, `${fileContainerResourceUrl}?itemPath=secret-build`);
    expect(items.status).toBe(404);
    expect((await call(mine.taskToken, pipelineUrl(2))).status).toBe(404);
    expect((await call('0'.repeat(40), pipelineUrl(1))).status).toBe(401);

    // Bad input is a clear 4xx.
    expect((await put(mine.taskToken, 'bytes 5-4/5', Buffer.from(''))).status).toBe(422);
    expect((await put(mine.taskToken, 'bytes 0-9/10', Buffer.from('short'))).status).toBe(422);
    expect(
      (await put(mine.taskToken, 'bytes 0-1/2', Buffer.from('ab'), 'secret-build/../x')).status,
    ).toBe(422);
    expect((await put(mine.taskToken, 'bytes 0-1/2', Buffer.from('ab'), 'other/x')).status).toBe(
      422,
    );
    const badName = await call(mine.taskToken, pipelineUrl(1), {
      method: 'POST',
      body: JSON.stringify({ Name: 'a/b' }),
    });
    expect(badName.status).toBe(422);
    expect((await badName.json()).message).toMatch(/artifact name/);

    // The quota counts every file of the repository's artifacts.
    const over = await put(
      mine.taskToken,
      `bytes 0-0/${QUOTA}`,
      Buffer.from('x'),
      'secret-build/big',
    );
    expect(over.status).toBe(413);

    const finished = await call(mine.taskToken, `${pipelineUrl(1)}&artifactName=secret-build`, {
      method: 'PATCH',
      body: JSON.stringify({ Size: 5 }),
    });
    expect(finished.status).toBe(200);
    // Private: outsiders get 404 from REST, the owner sees it.
    const path = `/repos/${mine.repo}/actions/artifacts/${containerId}`;
    expect((await apiCall(kiln.url, path)).status).toBe(404);
    expect((await apiCall(kiln.url, `${path}/zip`)).status).toBe(404);
    expect((await apiCall(kiln.url, path, { token: mine.token })).status).toBe(200);

    await mine.runner.run(mine.task, { steps: [{ lines: ['ok'], result: Result.SUCCESS }] });
    expect((await call(mine.taskToken, pipelineUrl(1))).status).toBe(401);

    // Past its retention the sweep removes it, bytes first.
    const folder = join(
      kiln.app.dataDir,
      'artifacts',
      (containerId % 256).toString(16).padStart(2, '0'),
      String(containerId),
    );
    expect((await readdir(folder)).length).toBe(1);
    // Bytes whose artifact is no longer recorded (a deleted repository's) go within 256 sweeps;
    // a recorded artifact's stay.
    const stray = join(folder, '..', String(containerId + 256 * 1000));
    await mkdir(stray, { recursive: true });
    await writeFile(join(stray, 'left-behind'), 'x');
    for (let sweep = 0; sweep < 256; sweep++) await kiln.app.services.ciArtifacts.expire();
    await expect(readdir(stray)).rejects.toThrow(/ENOENT/);
    expect((await readdir(folder)).length).toBe(1);
    expect(
      await kiln.app.services.ciArtifacts.expire(Date.now() + 91 * 86_400_000),
    ).toBeGreaterThan(0);
    await expect(readdir(folder)).rejects.toThrow(/ENOENT/);
    expect((await apiCall(kiln.url, path, { token: mine.token })).status).toBe(404);
    await theirs.runner.run(theirs.task, { steps: [{ lines: ['ok'], result: Result.SUCCESS }] });
  });
});
