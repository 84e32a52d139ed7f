/**
 * CI cache restore of a 100 MB entry against `tar -x` of the same archive from local disk, as
 * the client runs it. Target: restore ≤ 1.5 × tar. A restore is the lookup, the download of the
 * archive through its signed link and the extraction: the figure judged makes them as a lean
 * client would (the lookup over HTTP, `curl` writing the archive to a file, then the same
 * `tar -x`), so it times the server's part plus the baseline itself. The toolkit's own client
 * (`@actions/cache`, what `actions/cache@v4` runs) restores the same entry too, reported beside
 * it, as is the server's part alone (lookup and download) against tar.
 *
 *   node bench/cache.ts [--megabytes 100] [--rounds 5]
 *
 * Kiln runs in a process of its own with the launcher's flags (`--serve`: SQLite, a repository,
 * a running task whose token the client uses), so its work is not counted in this process. The
 * entry holds random bytes, so compression neither helps nor hides the transfer. The sides
 * alternate; medians are compared. Prints the figures and ends with one JSON line
 * (bench/run.ts's contract).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startNginxFileServer } from './_bare-file-server.ts';
import { cpuUs } from './_http-load.ts';
import { spawnBenchKiln } from './_kiln.ts';
import { median } from './_stats.ts';

const { values } = parseArgs({
  options: {
    megabytes: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '5' },
    serve: { type: 'string' },
  },
});
const MEGABYTES = Number(values.megabytes);
const ROUNDS = Number(values.rounds);

type Served = { url: string; token: string; owner: string; userToken: string };

if (values.serve !== undefined) {
  const { startBenchKiln, benchRunnerWithTask, serveUntilStopped } = await import('./_kiln.ts');
  const { seedBenchPerson } = await import('./_seed.ts');
  const { app, server, url } = await startBenchKiln({
    dataDir: values.serve,
    databaseUrl: undefined,
  });
  const person = await seedBenchPerson(app.services);
  const { repo } = await app.services.repos.create(person.user, { name: 'cache', autoInit: true });
  const { taskToken: token } = await benchRunnerWithTask(app, url, repo.id);
  const owner = person.user.handle;
  const info: Served = { url, token, owner, userToken: person.token };
  await serveUntilStopped(info, async () => {
    await server.close();
    await app.close();
  });
}

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-cache-'));
const kiln = await spawnBenchKiln<Served>(import.meta.filename, root);
const { url, token, owner, userToken } = kiln.info;

/** Runs a command to its end; its wall time in ms. */
function timed(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command}: ${code}`)),
    );
  });
}

try {
  const workspace = join(root, 'workspace');
  const deps = join(workspace, 'deps');
  mkdirSync(deps, { recursive: true });
  mkdirSync(join(root, 'temp'));
  Object.assign(process.env, {
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: join(root, 'temp'),
    ACTIONS_CACHE_URL: `${url}/api/actions_cache/`,
    ACTIONS_RUNTIME_TOKEN: token,
  });
  delete process.env.GITHUB_SERVER_URL;
  delete process.env.ACTIONS_CACHE_SERVICE_V2;
  for (let i = 0; i < MEGABYTES; i++) writeFileSync(join(deps, `part-${i}`), randomBytes(1 << 20));
  // The client's own logging is for workflow logs; the bench prints only its figures.
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = () => true;
  const cache = await import('@actions/cache');
  const saved = await cache.saveCache([deps], 'bench-deps');
  process.stdout.write = write;
  if (saved <= 0) throw new Error('the bench entry was not saved');

  // The same archive, on local disk: what the lookup's link serves (at the version the list
  // names, which the client derived from the paths and compression).
  const listed = await fetch(`${url}/api/v1/repos/${owner}/cache/actions/caches`, {
    headers: { authorization: `token ${userToken}` },
  });
  const [entry] = ((await listed.json()) as { actions_caches: { version: string }[] })
    .actions_caches;
  const lookup = await fetch(
    `${url}/api/actions_cache/_apis/artifactcache/cache?keys=bench-deps&version=${entry?.version}`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  const { archiveLocation } = (await lookup.json()) as { archiveLocation: string };
  const archive = join(root, 'archive.tzst');
  writeFileSync(archive, Buffer.from(await (await fetch(archiveLocation)).arrayBuffer()));

  const lookupUrl = `${url}/api/actions_cache/_apis/artifactcache/cache?keys=bench-deps&version=${entry?.version}`;
  const tarArgs = ['-xf', archive, '-P', '-C', workspace, '--use-compress-program', 'unzstd'];
  const fetched = join(root, 'fetched.tzst');
  const restores: number[] = [];
  const serverParts: number[] = [];
  const serverCpu: number[] = [];
  const leanRestores: number[] = [];
  const tars: number[] = [];
  // The same archive from nginx with sendfile to the same curl: the least a download to a file
  // takes here whoever serves it.
  const nginx = await startNginxFileServer(archive);
  const nginxParts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rmSync(deps, { recursive: true, force: true });
    process.stdout.write = () => true;
    const started = performance.now();
    const hit = await cache.restoreCache([deps], 'bench-deps');
    restores.push(performance.now() - started);
    process.stdout.write = write;
    if (hit !== 'bench-deps') throw new Error('the bench entry was not restored');

    // The lean client: the lookup, the archive to a file by curl, then the same extraction.
    rmSync(deps, { recursive: true, force: true });
    rmSync(fetched, { force: true });
    const leanStart = performance.now();
    const used = cpuUs({ pid: kiln.pid });
    const found = await fetch(lookupUrl, { headers: { authorization: `Bearer ${token}` } });
    const { archiveLocation: link } = (await found.json()) as { archiveLocation: string };
    await timed('curl', ['-sS', '--fail', '-o', fetched, link]);
    serverParts.push(performance.now() - leanStart);
    serverCpu.push((cpuUs({ pid: kiln.pid }) - used) / 1000);
    await timed('tar', ['-xf', fetched, '-P', '-C', workspace, '--use-compress-program', 'unzstd']);
    leanRestores.push(performance.now() - leanStart);

    rmSync(deps, { recursive: true, force: true });
    tars.push(await timed('tar', tarArgs));
    if (nginx) {
      rmSync(fetched, { force: true });
      nginxParts.push(await timed('curl', ['-sS', '--fail', '-o', fetched, nginx.url]));
    }
  }
  nginx?.stop();
  const tar = median(tars);
  const [lean, real, part] = [leanRestores, restores, serverParts].map((list) => median(list)) as [
    number,
    number,
    number,
  ];
  const nginxPart = nginx ? median(nginxParts) : undefined;
  process.stderr.write(
    `cache: restore of ${MEGABYTES} MB ${lean.toFixed(0)} ms (lookup and download ${part.toFixed(0)} ms${nginxPart ? `, the download alone from nginx ${nginxPart.toFixed(0)} ms` : ''}; the toolkit's client ${real.toFixed(0)} ms), tar -x ${tar.toFixed(0)} ms; server CPU ${median(serverCpu).toFixed(0)} ms per lookup and download\n`,
  );
  const ratio = (of: number) => Number((of / tar).toFixed(2));
  const figures = [
    {
      name: `Restore of a ${MEGABYTES} MB cache entry (lookup, download, tar -x) against tar -x of its archive`,
      target: '≤ 1.5',
      measured: ratio(lean),
      unit: '×',
      pass: lean / tar <= 1.5,
    },
    {
      name: `The server's part of that restore (lookup and download of ${MEGABYTES} MB) against tar -x`,
      target: 'reported',
      measured: ratio(part),
      unit: '×',
      pass: true,
    },
    ...(nginxPart
      ? [
          {
            name: `The same download to a file from nginx with sendfile, no lookup, against tar -x`,
            target: 'reported',
            measured: ratio(nginxPart),
            unit: '×',
            pass: true,
          },
        ]
      : []),
    {
      name: `Restore of the same entry by the toolkit's client (@actions/cache) against tar -x`,
      target: 'reported',
      measured: ratio(real),
      unit: '×',
      pass: true,
    },
  ];
  process.stdout.write(`${JSON.stringify({ figures })}\n`);
} finally {
  await kiln.stop();
  rmSync(root, { recursive: true, force: true });
}
