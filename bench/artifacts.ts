/**
 * Artifacts through the v4 protocol: 200 MB uploaded with the real client (`@actions/artifact`
 * 2.3.2, what upload-artifact@v4 bundles) against `cp` of the same bytes into the data
 * directory (target ≥ 0.5 × its throughput), and the zip downloaded from its signed URL against
 * reading the stored bytes (target ≥ 0.7 ×).
 *
 * A real Kiln in-process (SQLite unless SERVICE_DATABASE_URL names PostgreSQL) on 127.0.0.1 and
 * one running task, whose runtime token the client uses as a step would. The file is random
 * (incompressible) and zipped without compression (`compression-level: 0`, what one sets for
 * such files). The client's time includes its own zipping and hashing. Medians over the rounds.
 *
 *   node bench/artifacts.ts [--megabytes 200] [--rounds 3]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { registerBenchRunner, startBenchKiln } from './_kiln.ts';
import { seedBenchPerson } from './_seed.ts';
import { median } from './_stats.ts';

const { values } = parseArgs({
  options: {
    megabytes: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
  },
});
const BYTES = Number(values.megabytes) * 1024 * 1024;
const ROUNDS = Number(values.rounds);

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-artifacts-'));
const { app, server, url } = await startBenchKiln({
  dataDir: dir,
  databaseUrl: process.env.SERVICE_DATABASE_URL,
  env: { SERVICE_SECRET_KEY: 'bench artifacts secret key' },
});
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream);
}

try {
  const { services } = app;
  const { user } = await seedBenchPerson(services);
  const { repo } = await services.repos.create(user, { name: 'artifacts', private: false });
  const { createRun } = await import('../src/domain/ci/workflow-run.store.ts');
  const source = join(dir, 'source');
  mkdirSync(source);
  const file = join(source, 'payload.bin');
  const chunk = 8 * 1024 * 1024;
  writeFileSync(file, '');
  for (let written = 0; written < BYTES; written += chunk) {
    writeFileSync(file, randomBytes(Math.min(chunk, BYTES - written)), { flag: 'a' });
  }
  const { DefaultArtifactClient } = await import('@actions/artifact');
  const dataDir = join(dir, 'data');
  const uploads: number[] = [];
  const copies: number[] = [];
  const downloads: number[] = [];
  const reads: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await createRun(
      app.database.db,
      {
        repoId: repo.id,
        workflowName: 'bench',
        workflowFile: 'bench.yml',
        event: 'push',
        ref: 'refs/heads/main',
        sha: 'c'.repeat(40),
        triggeredBy: null,
      },
      [{ name: 'job', jobKey: 'job', runsOn: ['bench'], payload: 'jobs: {job: {runs-on: bench}}' }],
      ['global'],
    );
    const registered = await registerBenchRunner(services);
    const fetched = await services.ciDispatch.fetchTask(registered.runner, 0, url);
    const context = (fetched.task?.context ?? {}) as Record<string, unknown>;
    process.env.ACTIONS_RUNTIME_TOKEN = String(context.gitea_runtime_token);
    process.env.ACTIONS_RESULTS_URL = url;
    process.env.GITHUB_SERVER_URL = 'http://bench.localhost';
    process.env.GITHUB_WORKSPACE = source;
    const client = new DefaultArtifactClient();
    const token = String(context.gitea_runtime_token);
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    const [, runBackendId, jobBackendId] = String(claims.scp).split(':');

    let start = process.hrtime.bigint();
    const copied = spawnSync('cp', [file, join(dataDir, `copy-${round}.bin`)]);
    if (copied.status !== 0) throw new Error(String(copied.stderr));
    copies.push(seconds(start));

    start = process.hrtime.bigint();
    await client.uploadArtifact(`payload-${round}`, [file], source, {
      compressionLevel: 0,
    });
    uploads.push(seconds(start));

    start = process.hrtime.bigint();
    await drain(createReadStream(join(dataDir, `copy-${round}.bin`), { highWaterMark: 1 << 20 }));
    reads.push(seconds(start));

    const signed = await fetch(
      `${url}/twirp/github.actions.results.api.v1.ArtifactService/GetSignedArtifactURL`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          workflow_run_backend_id: runBackendId,
          workflow_job_run_backend_id: jobBackendId,
          name: `payload-${round}`,
        }),
      },
    );
    const { signed_url } = (await signed.json()) as { signed_url: string };
    start = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      get(signed_url, (response) => {
        response.on('data', () => {});
        response.on('end', resolve);
        response.on('error', reject);
      }).on('error', reject);
    });
    downloads.push(seconds(start));
  }
  const mb = BYTES / 1024 / 1024;
  const upload = mb / median(uploads);
  const copy = mb / median(copies);
  const download = mb / median(downloads);
  const read = mb / median(reads);
  console.log(
    `upload ${upload.toFixed(0)} MB/s, cp ${copy.toFixed(0)} MB/s; download ${download.toFixed(0)} MB/s, read ${read.toFixed(0)} MB/s`,
  );
  console.log(
    JSON.stringify({
      figures: [
        {
          name: `v4 upload of ${mb} MB by the real client ÷ cp into the data directory, throughput`,
          target: '≥ 0.5',
          measured: Number((upload / copy).toFixed(2)),
          unit: 'ratio',
          pass: upload / copy >= 0.5,
        },
        {
          name: `v4 download of ${mb} MB from its signed URL ÷ reading the stored bytes, throughput`,
          target: '≥ 0.7',
          measured: Number((download / read).toFixed(2)),
          unit: 'ratio',
          pass: download / read >= 0.7,
        },
      ],
    }),
  );
} finally {
  await server.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
