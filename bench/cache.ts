/**
 * CI cache restore: `restoreCache` of the toolkit's own client (`@actions/cache`, what
 * `actions/cache@v4` runs) fetching a 100 MB entry from a real Kiln — the lookup, the signed
 * download and the extraction — against `tar -x` of the same archive from local disk, as the
 * client runs it. Target: restore ≤ 1.5 × tar.
 *
 *   node bench/cache.ts [--megabytes 100] [--rounds 5]
 *
 * Kiln runs in a process of its own (`--serve`: SQLite, a repository, a running task whose token
 * the client uses), so its work is not counted in this process. The entry holds random bytes, so
 * compression neither helps nor hides the transfer. The two sides alternate; medians are
 * compared. Prints the figures and ends with one JSON line (bench/run.ts's contract).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
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

if (values.serve !== undefined) {
  const { startBenchKiln, benchRunnerWithTask } = await import('./_kiln.ts');
  const { seedBenchPerson } = await import('./_seed.ts');
  const { app, url } = await startBenchKiln({ dataDir: values.serve, databaseUrl: undefined });
  const person = await seedBenchPerson(app.services);
  const { repo } = await app.services.repos.create(person.user, { name: 'cache', autoInit: true });
  const { taskToken: token } = await benchRunnerWithTask(app, url, repo.id);
  const owner = person.user.handle;
  process.stdout.write(`${JSON.stringify({ url, token, owner, userToken: person.token })}\n`);
  await new Promise(() => {});
}

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-cache-'));
const server = spawn(process.execPath, [import.meta.filename, '--serve', root], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let said = '';
server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
  said += chunk;
});
while (!said.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 20));
const { url, token, owner, userToken } = JSON.parse(said.split('\n')[0] ?? '{}') as Record<
  string,
  string
>;

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

  const restores: number[] = [];
  const tars: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rmSync(deps, { recursive: true, force: true });
    process.stdout.write = () => true;
    const started = performance.now();
    const hit = await cache.restoreCache([deps], 'bench-deps');
    restores.push(performance.now() - started);
    process.stdout.write = write;
    if (hit !== 'bench-deps') throw new Error('the bench entry was not restored');
    rmSync(deps, { recursive: true, force: true });
    const tarArgs = ['-xf', archive, '-P', '-C', workspace, '--use-compress-program', 'unzstd'];
    tars.push(await timed('tar', tarArgs));
  }
  const ratio = median(restores) / median(tars);
  process.stderr.write(
    `cache: restore of ${MEGABYTES} MB ${median(restores).toFixed(0)} ms, tar -x ${median(tars).toFixed(0)} ms, ratio ${ratio.toFixed(2)}\n`,
  );
  const figure = {
    name: `Restore of a ${MEGABYTES} MB cache entry against tar -x of its archive`,
    target: '≤ 1.5',
    measured: Number(ratio.toFixed(2)),
    unit: '×',
    pass: ratio <= 1.5,
  };
  process.stdout.write(`${JSON.stringify({ figures: [figure] })}\n`);
} finally {
  server.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
