/**
 * Git LFS transfers and batches: a 200 MB object uploaded with the basic transfer (a streamed
 * PUT, as git-lfs sends it) against `cp` of the same bytes into the data directory (target ≥ 0.7
 * × its throughput) and downloaded against reading the stored bytes (target ≥ 0.8 ×); then a
 * batch request naming 1,000 objects against one naming a single object (target ≤ 5 × its time:
 * one query per batch, not one per object).
 *
 * Kiln runs in a process of its own with the launcher's flags (`--serve`: SQLite unless
 * SERVICE_DATABASE_URL names PostgreSQL) on 127.0.0.1. The object is random (git-lfs sends
 * objects as they are). The transfers are made by `curl`, a client in a process of its own as
 * git-lfs is. The baselines, `cp` and reading the stored bytes with `cat`, run in processes of
 * their own too; a bare Node server streaming the same file is reported beside the download.
 * Medians over the rounds.
 *
 *   node bench/lfs.ts [--megabytes 200] [--rounds 3] [--batches 50]
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import {
  curlDownload,
  curlUpload,
  startBareFileServer,
  startNginxFileServer,
} from './_bare-file-server.ts';
import { cpuUs } from './_http-load.ts';
import { spawnBenchKiln } from './_kiln.ts';
import { median } from './_stats.ts';

const { values } = parseArgs({
  options: {
    megabytes: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    batches: { type: 'string', default: '50' },
    serve: { type: 'string' },
  },
});
const BYTES = Number(values.megabytes) * 1024 * 1024;
const ROUNDS = Number(values.rounds);
const BATCHES = Number(values.batches);

type Served = { url: string; token: string; dataDir: string };

if (values.serve !== undefined) {
  const { startBenchKiln, serveUntilStopped } = await import('./_kiln.ts');
  const { seedBenchPerson } = await import('./_seed.ts');
  const { app, server, url } = await startBenchKiln({
    dataDir: values.serve,
    databaseUrl: process.env.SERVICE_DATABASE_URL,
  });
  const { user, token } = await seedBenchPerson(app.services);
  await app.services.repos.create(user, { name: 'models', private: true });
  const info: Served = { url, token, dataDir: join(values.serve, 'data') };
  await serveUntilStopped(info, async () => {
    await server.close();
    await app.close();
  });
}

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-lfs-'));
mkdirSync(join(dir, 'kiln'));
const kiln = await spawnBenchKiln<Served>(import.meta.filename, join(dir, 'kiln'));
const { url, token } = kiln.info;
const stops: Array<() => void> = [];
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/** One request on a fresh connection; resolves with the status once the answer is read. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: () => NodeJS.ReadableStream | Buffer,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${url}${path}`, { method, headers }, (response) => {
      response.on('data', () => {});
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    const payload = body?.();
    if (payload === undefined) outgoing.end();
    else if (Buffer.isBuffer(payload)) outgoing.end(payload);
    else pipeline(payload, outgoing).catch(reject);
  });
}

/** `curl` with `args`, in a process of its own; resolves with the status it was answered. */
function curl(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    // No `Expect: 100-continue` round trip, as git-lfs sends none.
    const child = spawn('curl', [
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '-H',
      'Expect:',
      ...args,
    ]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', () => resolve(Number(out)));
  });
}

try {
  const auth = { authorization: `Basic ${Buffer.from(`bench:${token}`).toString('base64')}` };
  const base = '/bench/models.git/info/lfs';
  const file = join(dir, 'payload.bin');
  const chunk = 8 * 1024 * 1024;
  writeFileSync(file, '');
  const hash = createHash('sha256');
  for (let written = 0; written < BYTES; written += chunk) {
    const part = randomBytes(Math.min(chunk, BYTES - written));
    hash.update(part);
    writeFileSync(file, part, { flag: 'a' });
  }
  const oid = hash.digest('hex');
  const { dataDir } = kiln.info;
  const bare = await startBareFileServer(file);
  stops.push(bare.stop);
  const bareDownloads: number[] = [];
  const nginx = await startNginxFileServer(file);
  if (nginx) stops.push(nginx.stop);
  const nginxDownloads: number[] = [];
  const nginxUploads: number[] = [];
  const bareUploads: number[] = [];
  const server = { pid: kiln.pid };
  const cpu = { up: [] as number[], down: [] as number[] };
  const uploads: number[] = [];
  const copies: number[] = [];
  const downloads: number[] = [];
  const reads: number[] = [];
  // LFS names an object by the SHA-256 of its bytes, and a server must check it before keeping
  // the object: no upload outruns hashing the bytes once, timed here on bytes already in memory.
  const hashes: number[] = [];
  const bytes = readFileSync(file);
  for (let round = 0; round < ROUNDS; round++) {
    const hashStart = process.hrtime.bigint();
    createHash('sha256').update(bytes).digest();
    hashes.push(seconds(hashStart));
    let start = process.hrtime.bigint();
    const copied = spawnSync('cp', [file, join(dataDir, `copy-${round}.bin`)]);
    if (copied.status !== 0) throw new Error(String(copied.stderr));
    copies.push(seconds(start));

    let used = cpuUs(server);
    start = process.hrtime.bigint();
    const put = await curl([
      '-T',
      file,
      '-H',
      `authorization: ${auth.authorization}`,
      '-H',
      'content-type: application/octet-stream',
      `${url}${base}/objects/${oid}`,
    ]);
    uploads.push(seconds(start));
    cpu.up.push((cpuUs(server) - used) / 1000);
    if (put !== 200) throw new Error(`upload answered ${put}`);

    // Read by `cat` in a process of its own, as `cp` copies and `curl` downloads: a read inside
    // this process would charge its buffers' collections to the baseline and flatter the ratio.
    start = process.hrtime.bigint();
    const read = spawnSync('sh', [
      '-c',
      'cat "$1" > /dev/null',
      'read',
      join(dataDir, `copy-${round}.bin`),
    ]);
    if (read.status !== 0) throw new Error(String(read.stderr));
    reads.push(seconds(start));

    used = cpuUs(server);
    start = process.hrtime.bigint();
    const get = await curl([
      '-H',
      `authorization: ${auth.authorization}`,
      `${url}${base}/objects/${oid}`,
    ]);
    downloads.push(seconds(start));
    cpu.down.push((cpuUs(server) - used) / 1000);
    if (get !== 200) throw new Error(`download answered ${get}`);
    bareDownloads.push(await curlDownload(bare.url));
    bareUploads.push(await curlUpload(`${bare.url}up`, file));
    if (nginx) {
      nginxDownloads.push(await curlDownload(nginx.url));
      nginxUploads.push(await curlUpload(nginx.putUrl(`up-${round}.bin`), file));
    }
  }

  const batch = (count: number) =>
    Buffer.from(
      JSON.stringify({
        operation: 'download',
        transfers: ['basic'],
        objects: Array.from({ length: count }, (_, i) => ({
          oid: i === 0 ? oid : createHash('sha256').update(String(i)).digest('hex'),
          size: i === 0 ? BYTES : 1000,
        })),
      }),
    );
  const headers = {
    ...auth,
    accept: 'application/vnd.git-lfs+json',
    'content-type': 'application/vnd.git-lfs+json',
  };
  const timeBatches = async (body: Buffer) => {
    const times: number[] = [];
    for (let i = 0; i < BATCHES; i++) {
      const start = process.hrtime.bigint();
      const status = await send('POST', `${base}/objects/batch`, headers, () => body);
      times.push(seconds(start));
      if (status !== 200) throw new Error(`batch answered ${status}`);
    }
    return median(times);
  };
  const one = batch(1);
  const thousand = batch(1000);
  await timeBatches(one);
  const single = await timeBatches(one);
  const many = await timeBatches(thousand);

  const mb = BYTES / 1024 / 1024;
  const upload = mb / median(uploads);
  const copy = mb / median(copies);
  const download = mb / median(downloads);
  const read = mb / median(reads);
  const plain = mb / median(bareDownloads);
  const hashing = mb / median(hashes);
  const bareUp = mb / median(bareUploads);
  const nginxRate = nginx ? mb / median(nginxDownloads) : undefined;
  const nginxUpRate = nginx ? mb / median(nginxUploads) : undefined;
  console.log(
    `upload ${upload.toFixed(0)} MB/s (bare Node server dropping it ${bareUp.toFixed(0)}${nginxUpRate ? `, nginx PUT ${nginxUpRate.toFixed(0)}` : ''}), cp ${copy.toFixed(0)} MB/s; download ${download.toFixed(0)} MB/s (bare Node server ${plain.toFixed(0)}${nginxRate ? `, nginx with sendfile ${nginxRate.toFixed(0)}` : ''}), read ${read.toFixed(0)} MB/s; SHA-256 alone ${hashing.toFixed(0)} MB/s; batch of 1: ${(single * 1000).toFixed(1)} ms, of 1,000: ${(many * 1000).toFixed(1)} ms; server CPU ${median(cpu.up).toFixed(0)} ms per upload, ${median(cpu.down).toFixed(0)} ms per download`,
  );
  console.log(
    JSON.stringify({
      figures: [
        {
          name: `LFS upload of ${mb} MB (basic transfer, hashed as it streams) ÷ cp into the data directory, throughput`,
          target: '≥ 0.7',
          measured: Number((upload / copy).toFixed(2)),
          unit: 'ratio',
          pass: upload / copy >= 0.7,
        },
        {
          name: `SHA-256 of the same ${mb} MB in memory, alone ÷ cp, throughput: the most an upload that checks its object id can reach`,
          target: 'reported',
          measured: Number((hashing / copy).toFixed(2)),
          unit: 'ratio',
          pass: true,
        },
        {
          name: `upload of the same ${mb} MB to a bare Node server that reads it and drops it ÷ cp, throughput`,
          target: 'reported',
          measured: Number((bareUp / copy).toFixed(2)),
          unit: 'ratio',
          pass: true,
        },
        {
          name: `LFS download of ${mb} MB ÷ reading the stored bytes, throughput`,
          target: '≥ 0.8',
          measured: Number((download / read).toFixed(2)),
          unit: 'ratio',
          pass: download / read >= 0.8,
        },
        {
          name: `download of the same ${mb} MB from a bare Node server streaming the file ÷ reading the stored bytes, throughput`,
          target: 'reported',
          measured: Number((plain / read).toFixed(2)),
          unit: 'ratio',
          pass: true,
        },
        ...(nginxRate && nginxUpRate
          ? [
              {
                name: `upload of the same ${mb} MB to nginx (WebDAV PUT, nothing hashed) ÷ cp, throughput`,
                target: 'reported',
                measured: Number((nginxUpRate / copy).toFixed(2)),
                unit: 'ratio',
                pass: true,
              },
              {
                name: `download of the same ${mb} MB from nginx with sendfile ÷ reading the stored bytes, throughput`,
                target: 'reported',
                measured: Number((nginxRate / read).toFixed(2)),
                unit: 'ratio',
                pass: true,
              },
            ]
          : []),
        {
          name: 'LFS batch naming 1,000 objects ÷ one naming a single object, time',
          target: '≤ 5',
          measured: Number((many / single).toFixed(2)),
          unit: 'ratio',
          pass: many / single <= 5,
        },
      ],
    }),
  );
} finally {
  for (const stop of stops) stop();
  await kiln.stop();
  rmSync(dir, { recursive: true, force: true });
}
