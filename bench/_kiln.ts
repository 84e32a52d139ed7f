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
