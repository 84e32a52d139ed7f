/**
 * Artifacts through the v4 protocol: 200 MB uploaded against `cp` of the same bytes into the
 * data directory (target ≥ 0.5 × its throughput), and the zip downloaded from its signed URL
 * against reading the stored bytes (target ≥ 0.7 ×).
 *
 * Kiln runs in a process of its own with the launcher's flags (`--serve`: SQLite unless
 * SERVICE_DATABASE_URL names PostgreSQL, one running task per upload). The figures judged are
 * the server's: a lean client in this process speaks the protocol as `@actions/artifact` does
 * (CreateArtifact, 8 MiB blocks PUT five at a time to the signed URL, the block list,
 * FinalizeArtifact; the download from its signed URL) with the zip's bytes ready in memory
 * before the clock starts. The real client (`@actions/artifact` 2.3.2, what upload-artifact@v4
 * bundles: zip, CRC and SHA-256 of the file included) runs too, and is reported beside them.
 * The file is random (incompressible). Baselines run in processes of their own (`cp`, `cat`);
 * the same blocks sent to a bare Node server that drops them or writes them to files, and to
 * nginx, are reported beside Kiln: what any server storing them gets on this machine.
 * Medians over the rounds.
 *
 *   node bench/artifacts.ts [--megabytes 200] [--rounds 3]
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { curlDownload, startBareFileServer, startNginxFileServer } from './_bare-file-server.ts';
import { cpuUs } from './_http-load.ts';
import { spawnBenchKiln } from './_kiln.ts';
import { median } from './_stats.ts';

const { values } = parseArgs({
  options: {
    megabytes: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    serve: { type: 'string' },
  },
});
const BYTES = Number(values.megabytes) * 1024 * 1024;
const ROUNDS = Number(values.rounds);
/** What `@actions/artifact` uploads at once, and in what blocks. */
const CONCURRENCY = 5;
const BLOCK = 8 * 1024 * 1024;
const TWIRP = '/twirp/github.actions.results.api.v1.ArtifactService';

type Served = { url: string; dataDir: string; tokens: string[] };

if (values.serve !== undefined) {
  const { startBenchKiln, registerBenchRunner, serveUntilStopped } = await import('./_kiln.ts');
  const { seedBenchPerson } = await import('./_seed.ts');
  const { createRun } = await import('../src/domain/ci/workflow-run.store.ts');
  const { app, server, url } = await startBenchKiln({
    dataDir: values.serve,
    databaseUrl: process.env.SERVICE_DATABASE_URL,
    env: { SERVICE_SECRET_KEY: 'bench artifacts secret key' },
  });
  const { user } = await seedBenchPerson(app.services);
  const { repo } = await app.services.repos.create(user, { name: 'artifacts', private: false });
  const tokens: string[] = [];
  // One task per upload: a lean and a real one each round.
  for (let i = 0; i < 2 * ROUNDS; i++) {
    const job = { name: 'job', jobKey: 'job', runsOn: ['bench'], payload: 'jobs: {}' };
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
      [job],
      ['global'],
    );
    const registered = await registerBenchRunner(app.services);
    const fetched = await app.services.ciDispatch.fetchTask(registered.runner, 0, url);
    const context = (fetched.task?.context ?? {}) as Record<string, unknown>;
    tokens.push(String(context.gitea_runtime_token));
  }
  const info: Served = { url, dataDir: join(values.serve, 'data'), tokens };
  await serveUntilStopped(info, async () => {
    await server.close();
    await app.close();
  });
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One request with a body in memory; the answer's status and text. */
function send(
  method: string,
  url: string,
  headers: Record<string, string | number>,
  body?: Buffer,
  via: Agent = agent,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, agent: via }, (response) => {
      let text = '';
      response.setEncoding('latin1');
      response.on('data', (chunk: string) => {
        if (text.length < 4096) text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The ids of the run and job a runtime token's `scp` names. */
function idsOf(token: string) {
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
  const [, run, job] = String(claims.scp).split(':');
  return { workflow_run_backend_id: run, workflow_job_run_backend_id: job };
}

async function twirp(url: string, token: string, method: string, body: object) {
  const answer = await send(
    'POST',
    `${url}${TWIRP}/${method}`,
    { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    Buffer.from(JSON.stringify({ ...idsOf(token), ...body })),
  );
  if (answer.status !== 200) throw new Error(`${method}: ${answer.status} ${answer.text}`);
  return JSON.parse(answer.text) as Record<string, string>;
}

/** `blocks` PUT five at a time as `@actions/artifact` sends them, block `i` to `urlOf(i)`. */
async function putBlocks(blocks: readonly Buffer[], urlOf: (index: number) => string) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < blocks.length; i = next++) {
      const block = blocks[i] as Buffer;
      const headers = { 'content-length': block.byteLength, 'x-ms-blob-type': 'BlockBlob' };
      const put = await send('PUT', urlOf(i), headers, block);
      if (put.status !== 201 && put.status !== 204) {
        throw new Error(`block: ${put.status} ${put.text}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** The lean client's upload: what `@actions/artifact` sends once its zip is made. */
async function leanUpload(
  url: string,
  token: string,
  name: string,
  blocks: Buffer[],
  hash: string,
) {
  const { signed_upload_url: signed } = await twirp(url, token, 'CreateArtifact', {
    name,
    version: 4,
  });
  const ids = blocks.map((_, i) =>
    Buffer.from(`block-${String(i).padStart(6, '0')}`).toString('base64'),
  );
  await putBlocks(
    blocks,
    (i) => `${signed}&comp=block&blockid=${encodeURIComponent(ids[i] ?? '')}`,
  );
  const list = Buffer.from(
    `<?xml version="1.0" encoding="utf-8"?><BlockList>${ids.map((id) => `<Latest>${id}</Latest>`).join('')}</BlockList>`,
  );
  const committed = await send(
    'PUT',
    `${signed}&comp=blocklist`,
    { 'content-length': list.byteLength },
    list,
  );
  if (committed.status !== 201) throw new Error(`block list: ${committed.status}`);
  await twirp(url, token, 'FinalizeArtifact', {
    name,
    size: String(BYTES),
    hash: `sha256:${hash}`,
  });
}

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-artifacts-'));
mkdirSync(join(dir, 'kiln'));
const kiln = await spawnBenchKiln<Served>(import.meta.filename, join(dir, 'kiln'), [
  '--rounds',
  String(ROUNDS),
]);
const stops: Array<() => void> = [];
try {
  const { url, dataDir, tokens } = kiln.info;
  const source = join(dir, 'source');
  mkdirSync(source);
  const file = join(source, 'payload.bin');
  const blocks: Buffer[] = [];
  for (let made = 0; made < BYTES; made += BLOCK)
    blocks.push(randomBytes(Math.min(BLOCK, BYTES - made)));
  writeFileSync(file, Buffer.concat(blocks));
  const hash = createHash('sha256').update(Buffer.concat(blocks)).digest('hex');
  const { DefaultArtifactClient } = await import('@actions/artifact');
  const times = {
    lean: [] as number[],
    real: [] as number[],
    cp: [] as number[],
    get: [] as number[],
    cat: [] as number[],
    bare: [] as number[],
    nginxGet: [] as number[],
    nginxPut: [] as number[],
    barePut: [] as number[],
    bareWrite: [] as number[],
    upCpu: [] as number[],
    downCpu: [] as number[],
  };
  const server = { pid: kiln.pid };
  const bare = await startBareFileServer(file);
  stops.push(bare.stop);
  const nginx = await startNginxFileServer(file);
  if (nginx) stops.push(nginx.stop);
  const timed = async (into: number[], work: () => unknown) => {
    const start = process.hrtime.bigint();
    await work();
    into.push(seconds(start));
  };
  // The real client's own logging is for workflow logs; the bench prints only its figures.
  const write = process.stdout.write.bind(process.stdout);
  for (let round = 0; round < ROUNDS; round++) {
    const copy = join(dataDir, `copy-${round}.bin`);
    await timed(times.cp, () => spawnSync('cp', [file, copy]));
    const lean = tokens[2 * round] ?? '';
    let cpu = cpuUs(server);
    await timed(times.lean, () => leanUpload(url, lean, `lean-${round}`, blocks, hash));
    times.upCpu.push((cpuUs(server) - cpu) / 1000);

    const real = tokens[2 * round + 1] ?? '';
    Object.assign(process.env, {
      ACTIONS_RUNTIME_TOKEN: real,
      ACTIONS_RESULTS_URL: url,
      GITHUB_SERVER_URL: 'http://bench.localhost',
      GITHUB_WORKSPACE: source,
    });
    process.stdout.write = () => true;
    await timed(times.real, () =>
      new DefaultArtifactClient().uploadArtifact(`real-${round}`, [file], source, {
        compressionLevel: 0,
      }),
    );
    process.stdout.write = write;

    await timed(times.cat, () => spawnSync('sh', ['-c', 'cat "$1" > /dev/null', 'cat', copy]));
    const { signed_url } = await twirp(url, lean, 'GetSignedArtifactURL', {
      name: `lean-${round}`,
    });
    cpu = cpuUs(server);
    times.get.push(await curlDownload(String(signed_url)));
    times.downCpu.push((cpuUs(server) - cpu) / 1000);
    times.bare.push(await curlDownload(bare.url));
    await timed(times.barePut, () => putBlocks(blocks, (i) => `${bare.url}up?block=${i}`));
    await timed(times.bareWrite, () => putBlocks(blocks, (i) => `${bare.url}write/${i}`));
    if (nginx) {
      times.nginxGet.push(await curlDownload(nginx.url));
      await timed(times.nginxPut, () =>
        putBlocks(blocks, (i) => nginx.putUrl(`up-${round}-${i}.bin`)),
      );
    }
  }
  const mb = BYTES / 1024 / 1024;
  const rate = (list: number[]) => mb / median(list);
  const [lean, real, cp, get, cat, plain] = [
    times.lean,
    times.real,
    times.cp,
    times.get,
    times.cat,
    times.bare,
  ].map(rate) as [number, number, number, number, number, number];
  const barePut = rate(times.barePut);
  const bareWrite = rate(times.bareWrite);
  const [nginxGet, nginxPut] = nginx ? [rate(times.nginxGet), rate(times.nginxPut)] : [];
  const nginxSaid = (value: number | undefined, what: string) =>
    value ? `, ${what} ${value.toFixed(0)}` : '';
  console.log(
    `upload ${lean.toFixed(0)} MB/s (real client ${real.toFixed(0)}, bare Node server dropping it ${barePut.toFixed(0)}, writing it ${bareWrite.toFixed(0)}${nginxSaid(nginxPut, 'nginx PUT')}), cp ${cp.toFixed(0)} MB/s; download ${get.toFixed(0)} MB/s (bare Node server ${plain.toFixed(0)}${nginxSaid(nginxGet, 'nginx with sendfile')}), read ${cat.toFixed(0)} MB/s; server CPU ${median(times.upCpu).toFixed(0)} ms per upload, ${median(times.downCpu).toFixed(0)} ms per download`,
  );
  const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
  console.log(
    JSON.stringify({
      figures: [
        {
          name: `v4 upload of ${mb} MB (blocks to the signed URL, block list, finalize) ÷ cp into the data directory, throughput`,
          target: '≥ 0.5',
          measured: ratio(lean, cp),
          unit: 'ratio',
          pass: lean / cp >= 0.5,
        },
        {
          name: `v4 download of ${mb} MB from its signed URL ÷ reading the stored bytes, throughput`,
          target: '≥ 0.7',
          measured: ratio(get, cat),
          unit: 'ratio',
          pass: get / cat >= 0.7,
        },
        {
          name: `v4 upload of ${mb} MB by the real client (its zip, CRC and SHA-256 included) ÷ cp, throughput`,
          target: 'reported',
          measured: ratio(real, cp),
          unit: 'ratio',
          pass: true,
        },
        {
          name: `download of the same ${mb} MB from a bare Node server streaming the file ÷ reading the stored bytes, throughput`,
          target: 'reported',
          measured: ratio(plain, cat),
          unit: 'ratio',
          pass: true,
        },
        {
          name: `the same client's blocks to a bare Node server that reads them and drops them ÷ cp, throughput`,
          target: 'reported',
          measured: ratio(barePut, cp),
          unit: 'ratio',
          pass: true,
        },
        {
          name: `the same client's blocks to a bare Node server that writes them to files as Kiln does (src/storage/gathered-write.ts) ÷ cp, throughput`,
          target: 'reported',
          measured: ratio(bareWrite, cp),
          unit: 'ratio',
          pass: true,
        },
        ...(nginxGet && nginxPut
          ? [
              {
                name: `the same client's blocks to nginx (WebDAV PUT, a file each) ÷ cp, throughput`,
                target: 'reported',
                measured: ratio(nginxPut, cp),
                unit: 'ratio',
                pass: true,
              },
              {
                name: `download of the same ${mb} MB from nginx with sendfile ÷ reading the stored bytes, throughput`,
                target: 'reported',
                measured: ratio(nginxGet, cat),
                unit: 'ratio',
                pass: true,
              },
            ]
          : []),
      ],
    }),
  );
} finally {
  for (const stop of stops) stop();
  agent.destroy();
  await kiln.stop();
  rmSync(dir, { recursive: true, force: true });
}
