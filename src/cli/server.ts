import type { FastifyBaseLogger } from 'fastify';
import type { App } from '../app.ts';
import type { Config } from '../config/config.ts';
import type { PullSuggestion } from '../domain/pulls/pull-suggestions.service.ts';
import { errorCode } from '../lib/thrown.ts';
import type { ServedSsh } from '../ssh/serve-ssh.ts';
import { releaseStartUpGarbage, startedUp } from '../start-up.js';
import { type Command, say, warn } from './command.ts';
import { privateDataDir } from './data-dir.ts';
import { withDerivedBaseUrl, withSecretKey } from './defaults.ts';

async function serve(configured: Config): Promise<void> {
  await privateDataDir(configured.dataDir);
  // Only `serve` locks a SQLite data dir; the other commands may run beside it.
  const { lockServe } = await import('../db/serve-lock.ts');
  process.once('exit', lockServe(configured));
  const derived = await withDerivedBaseUrl(withSecretKey(configured));
  const { config } = derived;
  const { createApp } = await import('../app.ts');
  const app = await createApp(config);
  const { buildServer } = await import('../http/server.ts');
  const server = await buildServer(app);
  let ssh: ServedSsh | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.log.info({ signal }, 'draining in-flight requests');
    await Promise.all([server.close(), ssh?.server.close()]);
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await enforceObjectIsolation(app, server.log);
  await server.listen({ host: config.http.host, port: config.http.port }).catch(async (error) => {
    await server.close();
    await app.close();
    if (errorCode(error) !== 'EADDRINUSE') throw error;
    throw new Error(
      `port ${config.http.port} on ${config.http.host} is already in use; choose another with service.http.port (SERVICE_HTTP_PORT)`,
    );
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  say(`listening on http://${host}:${port}`);
  if (derived.note) warn(derived.note);
  if (config.ssh.enabled) {
    const { serveSsh } = await import('../ssh/serve-ssh.ts');
    const { lfsSshCommands } = await import('../ssh/lfs-authenticate.ts');
    // SSH has no request to read a host from: the base URL, else the address HTTP listens on
    // unless it is a wildcard, which names no host a client could reach.
    const wildcard = /^(0\.0\.0\.0|::|\[::\])$/.test(host);
    const httpBase = config.baseUrl?.href ?? (wildcard ? undefined : `http://${host}:${port}`);
    const extraCommands = config.lfs.enabled
      ? lfsSshCommands(app.services, httpBase, server.log, config.lfs)
      : undefined;
    const { pushHintLines } = await import('../domain/pulls/push-hints.ts');
    const webBase = httpBase?.replace(/\/+$/, '');
    const pushHints = webBase
      ? (suggestions: readonly PullSuggestion[]) => pushHintLines(suggestions, webBase)
      : undefined;
    ssh = await serveSsh({ ...app, log: server.log, extraCommands, pushHints }).catch(
      async (error: unknown) => {
        await server.close();
        await app.close();
        throw error;
      },
    );
    say(`ssh listening on ${ssh.host.includes(':') ? `[${ssh.host}]` : ssh.host}:${ssh.port}`);
  }
  startedUp();
  releaseStartUpGarbage();
}

/**
 * Before serving: every repository that borrows objects it may not (see
 * RepoService.enforceObjectIsolation) gets its own copies, and each one is logged, since it
 * means something went wrong before: an older Kiln, a crash, a hand-made alternates file.
 */
async function enforceObjectIsolation(app: App, log: FastifyBaseLogger): Promise<void> {
  for (const repair of await app.services.repos.enforceObjectIsolation()) {
    const { repository, stores, outcome, error } = repair;
    if (outcome === 'detached') {
      log.warn(
        { repository, stores },
        'repository borrowed objects it may not; it has its own now',
      );
    } else {
      log.error(
        { repository, stores, err: error },
        'repository borrowed objects it may not and could not copy them; the loan was cut',
      );
    }
  }
}

/** Applies pending migrations only (no app, no repositories), and says how many it applied. */
async function migrate(config: Config): Promise<void> {
  const { migrate: applyMigrations, openDatabase } = await import('../db/database.ts');
  const dataDir = await privateDataDir(config.dataDir);
  withSecretKey(config);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir });
  try {
    const result = await applyMigrations(database);
    const applied = (result.results ?? []).filter((r) => r.status === 'Success').length;
    say(`database is up to date (${applied} migration${applied === 1 ? '' : 's'} applied)`);
  } finally {
    await database.close();
  }
}

/** `serve` and `migrate`. */
export const serverCommands: readonly Command[] = [
  {
    name: 'serve',
    summary: 'Run the HTTP server (applies pending migrations first)',
    options: {},
    notes: [
      'Prints `listening on http://HOST:PORT` once it serves, then `ssh listening on HOST:PORT`',
      'when SSH is on; SIGTERM or SIGINT drains the requests and SSH sessions in flight and',
      'exits 0. Host, port and the rest: docs/configuration.md.',
    ],
    run: ({ config }) => serve(config()),
  },
  {
    name: 'migrate',
    summary: 'Apply pending database migrations and exit',
    options: {},
    run: ({ config }) => migrate(config()),
  },
];
