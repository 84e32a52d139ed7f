/**
 * Replicas answer from memory: two `kiln serve` processes on one PostgreSQL database and one
 * data directory, each serving `GET /api/v1/repos/{owner}/{name}` against `GET /api/v1/version`
 * on the same process (32 connections, alternating runs, medians). Target: ≥ 0.5 on each
 * replica, by req/s, which needs the repository lookup to be reused between requests rather
 * than read from the database every time (db/postgres-change-clock.ts).
 *
 *   scripts/with-postgres.sh node bench/replica-reads.ts [--seconds 3] [--rounds 3]
 *
 * Needs a PostgreSQL server (KILN_TEST_DATABASE_URL names its maintenance database, as
 * scripts/with-postgres.sh sets it); without one it says so and reports nothing, so the page
 * keeps the last figures. Stops by itself; the database and the temporary directory are removed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '../test/support/database.ts';
import { alternate, children, load, startProcess, stopProcess } from './_http-load.ts';
import { seedBenchPerson } from './_seed.ts';
import { startFlags } from './_start-flags.ts';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const CONNECTIONS = Number(args.connections);
const REPLICAS = 2;

async function seed(env: Record<string, string>, configFile: string): Promise<string> {
  const { createApp } = await import('../src/app.ts');
  const { loadConfig } = await import('../src/config/load.ts');
  const app = await createApp(loadConfig({ file: configFile, env }));
  try {
    const { user } = await seedBenchPerson(app.services, { fullName: 'Bench' });
    await app.services.repos.create(user, { name: 'app', autoInit: true, description: 'seed' });
    return '/api/v1/repos/bench/app';
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  if (!process.env.KILN_TEST_DATABASE_URL) {
    process.stdout.write(
      'bench/replica-reads needs PostgreSQL: run it as scripts/with-postgres.sh node bench/replica-reads.ts\n',
    );
    return;
  }
  const database = await createTestDatabase();
  const root = mkdtempSync(join(tmpdir(), 'kiln-bench-replicas-'));
  try {
    const configFile = join(root, 'none.toml');
    writeFileSync(configFile, '');
    const env = {
      SERVICE_DATA_DIR: join(root, 'data'),
      SERVICE_DATABASE_URL: database.url ?? '',
      SERVICE_LOG_LEVEL: 'silent',
    };
    const repoPath = await seed(env, configFile);
    const serve = [...startFlags(), 'src/main.ts', 'serve', '--config', configFile];
    const replicas = [];
    for (let i = 0; i < REPLICAS; i += 1) {
      replicas.push(
        await startProcess(serve, {
          ...env,
          SERVICE_HTTP_HOST: '127.0.0.1',
          SERVICE_HTTP_PORT: '0',
        }),
      );
    }
    process.stdout.write(
      `kiln bench/replica-reads: ${REPLICAS} replicas on PostgreSQL, ${SECONDS}s runs, ${ROUNDS} rounds, ${CONNECTIONS} connections\n`,
    );
    const figures = [];
    for (const [index, replica] of replicas.entries()) {
      const run = (path: string) => () =>
        load(replica.child, `${replica.url}${path}`, {
          seconds: SECONDS,
          connections: CONNECTIONS,
        });
      // Discarded: the JIT and first-use compilation, on both sides alike.
      await run('/api/v1/version')();
      await run(repoPath)();
      const result = await alternate(ROUNDS, [
        { name: 'version', run: run('/api/v1/version') },
        { name: 'repo', run: run(repoPath) },
      ]);
      const version = result.get('version');
      const repo = result.get('repo');
      if (!version || !repo || version.errors + repo.errors > 0) {
        throw new Error(`replica ${index + 1}: failed requests`);
      }
      const ratio = repo.rps / version.rps;
      process.stdout.write(
        `  replica ${index + 1}: /version ${version.rps.toFixed(0)} req/s (${version.cpuUs.toFixed(0)} µs CPU), repository ${repo.rps.toFixed(0)} req/s (${repo.cpuUs.toFixed(0)} µs CPU, p99 ${repo.p99} ms): ${ratio.toFixed(2)}  (target >= 0.50)\n`,
      );
      figures.push({
        name: `PostgreSQL, ${REPLICAS} replicas: GET /api/v1/repos/{owner}/{name} ÷ GET /api/v1/version on replica ${index + 1}, req/s`,
        target: '≥ 0.5',
        measured: Math.round(ratio * 100) / 100,
        unit: 'ratio',
        pass: ratio >= 0.5,
      });
    }
    for (const replica of replicas) await stopProcess(replica.child);
    process.stdout.write(`${JSON.stringify({ figures })}\n`);
    if (figures.some((figure) => !figure.pass)) process.exitCode = 1;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await database.drop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
