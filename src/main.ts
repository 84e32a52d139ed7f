// First: turns on Node's compile cache for every module imported after this file's own, and holds
// V8's optimizing compilers back until the command is ready (`startedUp`, imported below).
import './start-up.js';
import { parseArgs } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import type { App } from './app.ts';
import type { Config } from './config/config.ts';
import { ConfigError, loadConfig } from './config/load.ts';
import { isDomainError } from './domain/errors.ts';
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

/** `withApp` for the federation commands; a usage error when federation is off. */
async function withFederation(
  config: Config,
  work: (federation: NonNullable<App['services']['federation']>, app: App) => Promise<void>,
): Promise<void> {
  return withApp(config, async (app) => {
    const federation = app.services.federation;
    if (!federation) {
      throw new UsageError(
        'federation is off: it needs SERVICE_BASE_URL and SERVICE_SECRET_KEY, and SERVICE_FEDERATION_ENABLED not false',
      );
    }
    await work(federation, app);
  });
}

async function serve(config: Config): Promise<void> {
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
  await server.listen({ host: config.http.host, port: config.http.port });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  process.stdout.write(`listening on http://${host}:${port}\n`);
  startedUp();
  detachForksOfPrivate(app, server.log);
}

/**
 * In the background, once serving: forks that earlier versions let borrow a private
 * repository's objects stop borrowing them (see RepoService.detachForksOfPrivate).
 */
function detachForksOfPrivate(app: App, log: FastifyBaseLogger): void {
  app.services.repos.detachForksOfPrivate().then(
    (forks) => {
      if (forks > 0) log.info({ forks }, 'forks of private repositories no longer share objects');
    },
    (error: unknown) => log.error({ err: error }, 'detaching forks of private repositories failed'),
  );
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
    usage: 'token create --username NAME --name LABEL',
    options: { username: { type: 'string' }, name: { type: 'string' } },
    run: (values, config) =>
      withApp(config(), async (app) => {
        const user = await app.services.users.getUser(required(values, 'username'));
        const { token } = await app.services.tokens.create(user, required(values, 'name'));
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
  'federation hosts': {
    summary: 'List the servers that follow or starred something here, and blocked ones',
    usage: 'federation hosts',
    options: {},
    run: (_values, config) =>
      withFederation(config(), async (federation) => {
        for (const known of await federation.instances.list()) {
          const state = known.blocked
            ? 'blocked'
            : known.failingSince
              ? `failing since ${known.failingSince.toISOString()}`
              : 'ok';
          process.stdout.write(
            `${known.host}\t${known.followers} followers\t${known.stars} stars\t${state}\n`,
          );
        }
      }),
  },
  'federation block': {
    summary: 'Block a server: its activities are refused and nothing is delivered to it',
    usage: 'federation block --host HOST',
    options: { host: { type: 'string' } },
    run: (values, config) =>
      withFederation(config(), async (federation) => {
        await federation.instances.block(required(values, 'host'));
        process.stderr.write(`blocked ${values.host} (every server notices within 15 s)\n`);
      }),
  },
  'federation unblock': {
    summary: 'Lift a block made with `federation block`',
    usage: 'federation unblock --host HOST',
    options: { host: { type: 'string' } },
    run: (values, config) =>
      withFederation(config(), async (federation) => {
        await federation.instances.unblock(required(values, 'host'));
        process.stderr.write(`unblocked ${values.host}\n`);
      }),
  },
  'federation follow': {
    summary: 'Make a user follow a remote actor (URL or user@host); the server delivers it',
    usage: 'federation follow --username NAME --actor URL|USER@HOST',
    options: { username: { type: 'string' }, actor: { type: 'string' } },
    run: (values, config) =>
      withFederation(config(), async (federation, app) => {
        const user = await app.services.users.getUser(required(values, 'username'));
        const actor = await federation.following.follow(user, required(values, 'actor'));
        process.stderr.write(`${user.handle} asked to follow ${actor}\n`);
      }),
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
