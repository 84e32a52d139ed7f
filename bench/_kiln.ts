/**
 * Shared by the runner protocol benches (not a bench itself: bench/run.ts skips `_*.ts`):
 * a real Kiln listening on 127.0.0.1 for a worker thread, and a thin binary Connect unary client
 * over HTTP/1.1 keep-alive, as the Go runners speak it.
 */
import { writeFileSync } from 'node:fs';
import { type Agent, request } from 'node:http';
import { join } from 'node:path';
import { type DescMessage, fromBinary, type MessageShape, toBinary } from '@bufbuild/protobuf';
import type { Kysely } from 'kysely';
import type { Tables } from '../src/db/tables.ts';
import type { DomainServices } from '../src/domain/services.ts';

/**
 * Kiln on 127.0.0.1, port 0, in `dataDir`; SQLite unless `databaseUrl` names PostgreSQL. `env`
 * adds configuration (`SERVICE_PROTECT_ENABLED: 'false'`, …).
 */
export async function startBenchKiln(options: {
  dataDir: string;
  databaseUrl: string | undefined;
  env?: Readonly<Record<string, string>>;
}) {
  const { createApp } = await import('../src/app.ts');
  const { loadConfig } = await import('../src/config/load.ts');
  const { buildServer } = await import('../src/http/server.ts');
  const configFile = join(options.dataDir, 'empty.toml');
  writeFileSync(configFile, '');
  const app = await createApp(
    loadConfig({
      file: configFile,
      env: {
        SERVICE_DATA_DIR: join(options.dataDir, 'data'),
        SERVICE_LOG_LEVEL: 'silent',
        ...(options.databaseUrl ? { SERVICE_DATABASE_URL: options.databaseUrl } : {}),
        ...options.env,
      },
    }),
  );
  const server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('server did not bind');
  return { app, server, url: `http://127.0.0.1:${address.port}` };
}

/**
 * POSTs an encoded body to a runner procedure (`runner.v1.RunnerService/FetchTask`) and reads the
 * whole answer; status 0 when the connection failed before one came.
 */
export function postProto(
  baseUrl: string,
  procedure: string,
  body: Uint8Array,
  headers: Record<string, string> = {},
  agent?: Agent,
): Promise<{ status: number; body: Buffer }> {
  const failed = { status: 0, body: Buffer.alloc(0) };
  return new Promise((resolve) => {
    const outgoing = request(
      `${baseUrl}/api/actions/${procedure}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/proto',
          'connect-protocol-version': '1',
          'content-length': body.byteLength,
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }),
        );
        response.on('error', () => resolve(failed));
      },
    );
    outgoing.on('error', () => resolve(failed));
    outgoing.end(body);
  });
}

/**
 * One Connect unary call: POST the binary request, decode the binary answer. The request may be
 * given already encoded, so that a bench of the server does not time the client's encoding.
 */
export function unaryCaller(baseUrl: string, agent: Agent) {
  return async function unary<I extends DescMessage, O extends DescMessage>(
    procedure: string,
    input: I,
    output: O,
    message: MessageShape<I> | Uint8Array,
    headers: Record<string, string> = {},
  ): Promise<MessageShape<O>> {
    const body = message instanceof Uint8Array ? message : toBinary(input, message);
    const answer = await postProto(baseUrl, procedure, body, headers, agent);
    if (answer.status !== 200) throw new Error(`${procedure}: ${answer.status} ${answer.body}`);
    return fromBinary(output, answer.body);
  };
}

/** What the runner helpers below need of an app. */
type BenchApp = {
  readonly database: { readonly db: Kysely<Tables> };
  readonly services: Pick<DomainServices, 'runnerAdmin' | 'runners' | 'ciDispatch'>;
};

/** Registers the bench's runner (labelled `bench`) through the domain, with an instance token. */
export async function registerBenchRunner(services: BenchApp['services']) {
  const { OPERATOR } = await import('../src/domain/runners/runner.policy.ts');
  const registration = await services.runnerAdmin.createToken(OPERATOR, { kind: 'instance' });
  return services.runners.register({
    token: registration.token,
    name: 'bench',
    version: 'v0.2.11',
    labels: ['bench'],
    ephemeral: false,
    capabilities: [],
  });
}

/**
 * A run of one job for runners labelled `bench` in the repository, written straight to the
 * tables, and the bench's runner holding its task: the runner's credentials, the task id and
 * the task's token (what its steps present to the cache service).
 */
export async function benchRunnerWithTask(app: BenchApp, url: string, repoId: string) {
  const { createRun } = await import('../src/domain/ci/workflow-run.store.ts');
  await createRun(
    app.database.db,
    {
      repoId,
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
  const registered = await registerBenchRunner(app.services);
  const fetched = await app.services.ciDispatch.fetchTask(registered.runner, 0, url);
  if (fetched.task === undefined) throw new Error('no task for the bench runner');
  return {
    uuid: registered.runner.uuid,
    token: registered.token,
    taskId: fetched.task.id,
    taskToken: fetched.task.secrets.GITHUB_TOKEN ?? '',
  };
}

/** A Kiln a bench started in a process of its own: what it printed once ready, and its pid. */
export type ChildKiln<T> = {
  readonly info: T;
  readonly pid: number;
  /** Ends the process (SIGTERM; a CPU profile asked for is written first) and waits for it. */
  stop(): Promise<void>;
};

/**
 * Starts `file --serve DIR` as Kiln's own process, with the node flags, preload and environment
 * of the `kiln` launcher, as users deploy it: a client in the bench process then shares no heap,
 * garbage collector or event loop with the server it measures. `args` go to the child too. The
 * child prints one JSON line once it listens (see `serveUntilStopped`). `BENCH_CPU_PROF=DIR` profiles the child into DIR.
 */
export async function spawnBenchKiln<T>(
  file: string,
  dir: string,
  args: readonly string[] = [],
): Promise<ChildKiln<T>> {
  const { spawn } = await import('node:child_process');
  const { startEnv, startFlags } = await import('./_start-flags.ts');
  const profile = process.env.BENCH_CPU_PROF;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(
    process.execPath,
    [...startFlags(), ...flags, file, ...args, '--serve', dir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...startEnv() },
    },
  );
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let said = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    said += chunk;
  });
  while (!said.includes('\n')) {
    if (child.exitCode !== null) throw new Error(`the bench's Kiln exited ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    info: JSON.parse(said.slice(0, said.indexOf('\n'))) as T,
    pid: child.pid ?? 0,
    async stop() {
      child.kill('SIGTERM');
      await ended;
    },
  };
}

/**
 * The child side of `spawnBenchKiln`: prints `info` as one JSON line and serves until SIGTERM,
 * then closes and exits normally (so that `--cpu-prof` writes its profile).
 */
export async function serveUntilStopped(info: unknown, close: () => Promise<void>): Promise<never> {
  process.stdout.write(`${JSON.stringify(info)}\n`);
  await new Promise((resolve) => process.once('SIGTERM', resolve));
  await close();
  process.exit(0);
}
