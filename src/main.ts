// First: turns on Node's compile cache for every module imported after this file's own, and holds
// V8's optimizing compilers back until the command is ready (`startedUp`, imported below).
import './start-up.js';
import { parseArgs } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import type { App } from './app.ts';
import type { Config } from './config/config.ts';
import { ConfigError, loadConfig } from './config/load.ts';
import { Invalid, isDomainError } from './domain/errors.ts';
import { parseDuration } from './lib/duration.ts';
import { startedUp } from './start-up.js';

// The compile cache (turned on above, or earlier by `npm start`) keeps the type-stripped and
// compiled code of modules loaded from here on, so a later start skips stripping and compiling
// them: the app and the server are therefore imported dynamically, below.

async function createApp(config: Config): Promise<App> {
  return (await import('./app.ts')).createApp(config);
}

/** A mistake by whoever ran the command: printed as one line, exit code 2. */
class UsageError extends Error {}

type Command = {
  readonly summary: string;
  readonly usage: string;
  readonly options: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  run(values: Record<string, string | boolean | undefined>, config: () => Config): Promise<void>;
};

/** `--expires 30d`: that long from now; a duration Kiln cannot read is a one-line error. */
function expiryAfter(text: string): Date {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new Invalid(`--expires takes a duration such as 7d, 30d or 12h, not ${text}`);
  }
  return new Date(Date.now() + ms);
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function withApp<T>(config: Config, work: (app: App) => Promise<T>): Promise<T> {
  const app = await createApp(config);
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

async function serve(config: Config): Promise<void> {
  // Only `serve` locks a SQLite data dir; the other commands may run beside it.
  const { lockServe } = await import('./db/serve-lock.ts');
  process.once('exit', lockServe(config));
  const app = await createApp(config);
  const { buildServer } = await import('./http/server.ts');
  const server = await buildServer(app);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.log.info({ signal }, 'draining in-flight requests');
    await server.close();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await enforceObjectIsolation(app, server.log);
  await server.listen({ host: config.http.host, port: config.http.port }).catch(async (error) => {
    await server.close();
    await app.close();
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new Error(
      `port ${config.http.port} on ${config.http.host} is already in use; choose another with service.http.port (SERVICE_HTTP_PORT)`,
    );
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  process.stdout.write(`listening on http://${host}:${port}\n`);
  startedUp();
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

const commands: Record<string, Command> = {
  serve: {
    summary: 'Run the HTTP server (applies pending migrations first)',
    usage: 'serve [--config FILE]',
    options: {},
    run: (_values, config) => serve(config()),
  },
  migrate: {
    summary: 'Apply pending database migrations and exit',
    usage: 'migrate [--config FILE]',
    options: {},
    run: (_values, config) => withApp(config(), async () => {}),
  },
  'user create': {
    summary: 'Create a user',
    usage: 'user create --username NAME --email ADDR --password PW [--full-name NAME]',
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      'full-name': { type: 'string' },
    },
    run: (values, config) =>
      withApp(config(), async (app) => {
        const fullName = values['full-name'];
        const user = await app.services.users.createUser({
          handle: required(values, 'username'),
          email: required(values, 'email'),
          password: required(values, 'password'),
          ...(typeof fullName === 'string' ? { fullName } : {}),
        });
        process.stderr.write(`created user ${user.handle}\n`);
      }),
  },
  'token create': {
    summary: 'Create a personal access token and print it (shown once)',
    usage:
      'token create --username NAME --name LABEL [--scopes read:repository,write:user] [--expires 30d]   (default: all scopes, no expiry)',
    options: {
      username: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      expires: { type: 'string' },
    },
    run: (values, config) =>
      withApp(config(), async (app) => {
        const user = await app.services.users.getUser(required(values, 'username'));
        const { scopes, expires } = values;
        const { token } = await app.services.tokens.create(user, required(values, 'name'), {
          scopes: typeof scopes === 'string' ? scopes : undefined,
          expiresAt: typeof expires === 'string' ? expiryAfter(expires) : null,
        });
        process.stdout.write(`${token}\n`);
      }),
  },
  'org create': {
    summary: 'Create an organisation owned by a user',
    usage: 'org create --name ORG --owner USERNAME',
    options: { name: { type: 'string' }, owner: { type: 'string' } },
    run: (values, config) =>
      withApp(config(), async (app) => {
        const owner = await app.services.users.getUser(required(values, 'owner'));
        const org = await app.services.orgs.createOrg({ name: required(values, 'name'), owner });
        process.stderr.write(`created organisation ${org.handle}\n`);
      }),
  },
  'actions generate-runner-token': {
    summary: 'Create a runner registration token and print it (shown once)',
    usage: 'actions generate-runner-token [--repo OWNER/NAME | --org ORG]',
    options: { repo: { type: 'string' }, org: { type: 'string' } },
    run: (values, config) =>
      withApp(config(), async (app) => {
        const repo = typeof values.repo === 'string' ? values.repo : undefined;
        const org = typeof values.org === 'string' ? values.org : undefined;
        if (repo !== undefined && org !== undefined) {
          throw new UsageError('give --repo or --org, not both');
        }
        const admin = app.services.runnerAdmin;
        const scope = await admin.resolveScope({
          ...(repo !== undefined ? { repo } : {}),
          ...(org !== undefined ? { org } : {}),
        });
        const { OPERATOR } = await import('./domain/runners/runner.policy.ts');
        const { token } = await admin.createToken(OPERATOR, scope);
        process.stdout.write(`${token}\n`);
      }),
  },
  runner: {
    summary: 'The built-in runner: register this host, or run jobs on it (runner --help)',
    usage: 'runner register|daemon [options]   (see runner --help)',
    options: {},
    // Its own command line (src/runner/cli.ts): the runner needs no Kiln configuration.
    run: async () => {},
  },
  dump: {
    summary: 'Write a consistent archive of the database and every repository',
    usage: 'dump --output FILE [--config FILE]   (a tar file; "-" writes to stdout)',
    options: { output: { type: 'string', short: 'o' } },
    run: (values, config) =>
      withApp(config(), async (app) => {
        const { runDump } = await import('./cli/backup.command.ts');
        // Bulk work from here on: V8 may optimize what runs hot (see start-up.js).
        startedUp();
        await runDump(app, required(values, 'output'));
      }),
  },
  restore: {
    summary: 'Restore a dump into an empty data directory and database',
    usage: 'restore --input FILE [--config FILE]   ("-" reads stdin)',
    options: { input: { type: 'string', short: 'i' } },
    run: async (values, config) => {
      const { runRestore } = await import('./cli/backup.command.ts');
      startedUp();
      await runRestore(config(), required(values, 'input'));
    },
  },
  doctor: {
    summary: 'Check the database, the configuration and every repository, and say what to fix',
    usage: 'doctor [--config FILE]',
    options: {},
    run: async (_values, config) => {
      const { runDoctor } = await import('./cli/backup.command.ts');
      process.exitCode = await runDoctor(config());
    },
  },
  mcp: {
    summary: 'Serve the MCP tools on stdio as the owner of a personal access token',
    usage: 'mcp [--token-file PATH] [--config FILE]   (token from KILN_TOKEN when no file)',
    options: { 'token-file': { type: 'string' } },
    run: async (values, config) => {
      // Loaded only for this command: the MCP SDK would otherwise weigh on every `serve`.
      const { runMcp } = await import('./mcp/mcp-command.ts');
      const tokenFile = values['token-file'];
      return runMcp(config(), {
        tokenFile: typeof tokenFile === 'string' ? tokenFile : undefined,
        env: process.env,
        onReady: startedUp,
      });
    },
  },
};

function overview(): string {
  const lines = Object.entries(commands).map(
    ([name, command]) => `  ${name.padEnd(34)}${command.summary}`,
  );
  return `Kiln, a self-hosted git forge\n\nUsage: node src/main.ts <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nEvery command accepts --config FILE (default ./service.toml) and --help.\n`;
}

function findCommand(
  argv: string[],
): { name: string; command: Command; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = commands[name];
    if (command) return { name, command, rest: argv.slice(words) };
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(overview());
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === 'runner') return (await import('./runner/cli.ts')).runRunnerCli(argv.slice(1));
  const found = findCommand(argv);
  if (!found) throw new UsageError(`unknown command "${argv.slice(0, 2).join(' ')}" (try --help)`);
  const { values } = parseArgs({
    args: found.rest,
    options: {
      ...found.command.options,
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(
      `${found.command.summary}\n\nUsage: node src/main.ts ${found.command.usage}\n`,
    );
    return 0;
  }
  const file = typeof values.config === 'string' ? values.config : undefined;
  await found.command.run(values, () => loadConfig({ file }));
  return 0;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof UsageError || isDomainError(error)) {
      process.stderr.write(`kiln: ${firstLine(error.message)}\n`);
      process.exitCode = 2;
      return;
    }
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`kiln: ${firstLine((error as Error).message)}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(
      `kiln: ${firstLine(error instanceof Error ? error.message : String(error))}\n`,
    );
    process.exitCode = 1;
  },
);
