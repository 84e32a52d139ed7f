/**
 * The v4 artifact protocol, spoken by the real client (`@actions/artifact` 2.3.2, what
 * upload-artifact@v4 bundles) with the runtime token a task's context carries: Twirp calls, blocks
 * and a block list through its Azure SDK, the signed download; then REST's zip of the same bytes.
 * Signed URLs hold only with their signature, and only for the run of the token.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DefaultArtifactClient } from '@actions/artifact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { restoreEnvironmentAfterSuite } from '../support/environment.ts';
import type { GitClient } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { type ClaimedTask, claimTask } from './support.ts';

restoreEnvironmentAfterSuite();
let kiln: TestServer;
let git: GitClient;
let dir: string;
useWorld({ env: { SERVICE_SECRET_KEY: 'v4 artifacts key' } }, (world) => {
  ({ kiln, git } = world);
});
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kiln-artifacts-v4-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const runtimeTokenOf = (claimed: ClaimedTask) =>
  String((claimed.task.context as Record<string, unknown>).gitea_runtime_token);

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
}

const twirp = (token: string, method: string, body: unknown) =>
  fetch(`${kiln.url}/twirp/github.actions.results.api.v1.ArtifactService/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the v4 artifact protocol', () => {
  it('carries an artifact through the real v4 client and REST', async () => {
    const claimed = await claimTask(kiln, git, 'v4-box');
    const token = runtimeTokenOf(claimed);
    const context = claimed.task.context as Record<string, unknown>;
    expect(context.forgejo_runtime_token).toBe(token);
    const scope = String(claimsOf(token).scp);
    expect(scope).toMatch(/^Actions\.Results:[^:]+:\d+$/);

    const source = join(dir, 'source');
    await mkdir(join(source, 'sub'), { recursive: true });
    const files = {
      'readme.txt': Buffer.from('v4 artifact\n'),
      'sub/noise.bin': randomBytes(12 * 1024 * 1024 + 5),
    };
    for (const [path, bytes] of Object.entries(files)) await writeFile(join(source, path), bytes);
    process.env.ACTIONS_RUNTIME_TOKEN = token;
    process.env.ACTIONS_RESULTS_URL = `${kiln.url}/`;
    // The client's guard accepts *.localhost only; this variable feeds nothing else in it.
    process.env.GITHUB_SERVER_URL = 'http://kiln.localhost';
    process.env.GITHUB_WORKSPACE = source;

    const client = new DefaultArtifactClient();
    const uploaded = await client.uploadArtifact(
      'v4-output',
      Object.keys(files).map((path) => join(source, path)),
      source,
      { compressionLevel: 0 },
    );
    expect(uploaded.id).toEqual(expect.any(Number));
    const { artifacts } = await client.listArtifacts();
    expect(artifacts.map((a) => [a.name, a.id])).toEqual([['v4-output', uploaded.id]]);
    const target = join(dir, 'target');
    await client.downloadArtifact(uploaded.id ?? 0, { path: target });
    for (const [path, bytes] of Object.entries(files)) {
      expect((await readFile(join(target, path))).equals(bytes), path).toBe(true);
    }

    const zip = await fetch(
      `${kiln.url}/api/v1/repos/${claimed.repo}/actions/artifacts/${uploaded.id}/zip`,
    );
    expect(zip.status).toBe(200);
    await writeFile(join(dir, 'v4.zip'), Buffer.from(await zip.arrayBuffer()));
    await promisify(execFile)('unzip', ['-q', 'v4.zip', '-d', 'unzipped'], { cwd: dir });
    expect(
      (await readFile(join(dir, 'unzipped/sub/noise.bin'))).equals(files['sub/noise.bin']),
    ).toBe(true);
    const listed = await apiCall(kiln.url, `/repos/${claimed.repo}/actions/runs/1/artifacts`);
    expect(listed.body.artifacts[0]).toMatchObject({
      id: uploaded.id,
      name: 'v4-output',
      size_in_bytes: uploaded.size,
    });

    // Signed URLs: tampered ones are refused, a padded signature is the same signature.
    const [, runId, jobId] = scope.split(':');
    const ids = { workflow_run_backend_id: runId, workflow_job_run_backend_id: jobId };
    const signed = await twirp(token, 'GetSignedArtifactURL', {
      ...ids,
      name: 'v4-output',
      unknown_field: 1,
    });
    expect(signed.status).toBe(200);
    const url = new URL(((await signed.json()) as { signed_url: string }).signed_url);
    const sig = url.searchParams.get('sig') ?? '';
    url.searchParams.set('sig', `${sig}=`);
    // Read to the end: a 12 MB answer left unread holds its connection open, and with it the
    // server's close after the suite, until the collector happens to free the response.
    const padded = await fetch(url);
    expect(padded.status).toBe(200);
    expect((await padded.arrayBuffer()).byteLength).toBeGreaterThan(12 * 1024 * 1024);
    url.searchParams.set('artifact', String((uploaded.id ?? 0) + 1));
    expect((await fetch(url)).status).toBe(401);

    // Another task's runtime token, naming this run: 404; garbage: 401.
    const other = await claimTask(kiln, git, 'v4-other');
    const theirs = await twirp(runtimeTokenOf(other), 'ListArtifacts', ids);
    expect(theirs.status).toBe(404);
    expect((await twirp('not-a-token', 'ListArtifacts', ids)).status).toBe(401);
    expect((await twirp(token, 'CreateArtifact', { ...ids, name: 'a/b' })).status).toBe(422);

    await client.deleteArtifact('v4-output');
    expect((await client.listArtifacts()).artifacts).toEqual([]);
    await claimed.runner.run(claimed.task, { steps: [{ lines: ['ok'], result: Result.SUCCESS }] });
    expect((await twirp(token, 'ListArtifacts', ids)).status).toBe(401);
    await other.runner.run(other.task, { steps: [{ lines: ['ok'], result: Result.SUCCESS }] });
  });
});
