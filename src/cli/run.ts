import type { Config } from '../config/config.ts';
import { ConfigError, loadConfig, unknownEnvironmentWarnings } from '../config/load.ts';
import { isDomainError } from '../domain/errors.ts';
import { restrictUmask } from '../lib/private-modes.ts';
import { errorCode } from '../lib/thrown.ts';
import { actionsCommands } from './actions.ts';
import { backupCommands } from './backup.ts';
import { type Command, UsageError, warn } from './command.ts';
import { withStoredSecretKey } from './defaults.ts';
import { federationCommands } from './federation.ts';
import { commandHelp, groupHelp, type Listed, overview } from './help.ts';
import { mcpCommands } from './mcp.ts';
import { orgCommands } from './orgs.ts';
import { parseCommandLine } from './parse.ts';
import { repoCommands } from './repos.ts';
import { serverCommands } from './server.ts';
import { tokenCommands } from './tokens.ts';
import { userCommands } from './users.ts';

/** Every command, in the order `kiln --help` lists them. */
export const COMMANDS: readonly Command[] = [
  ...serverCommands,
  ...userCommands,
  ...tokenCommands,
  ...orgCommands,
  ...repoCommands,
  ...actionsCommands,
  ...backupCommands,
  ...federationCommands,
  ...mcpCommands,
];

/**
 * `kiln runner …` is handed whole to the built-in runner's own command line (src/runner/cli.ts),
 * which has its own help; the overview lists its commands so that they can be found.
 */
const RUNNER_COMMANDS: readonly Listed[] = [
  {
    name: 'runner register',
    summary: 'Register this host as a CI runner with a Kiln, Gitea or Forgejo server',
  },
  {
    name: 'runner daemon',
    summary: 'Run CI jobs on this host for the server it is registered with',
  },
];

/** What `kiln --help` lists: every command, then the runner's, before `mcp` as before. */
const LISTED: readonly Listed[] = [
  ...COMMANDS.filter((command) => !command.name.startsWith('mcp')),
  ...RUNNER_COMMANDS,
  ...COMMANDS.filter((command) => command.name.startsWith('mcp')),
];

/** Exit codes: 0 done, 1 failed, 2 the command line or the configuration was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Reads the configuration once, warning (on stderr) about SERVICE_ variables that are no key. */
function configLoader(file: string | undefined): () => Config {
  let config: Config | undefined;
  return () => {
    if (!config) {
      config = withStoredSecretKey(loadConfig({ file }));
      for (const line of unknownEnvironmentWarnings(process.env)) warn(line);
    }
    return config;
  };
}

/** Runs the command line `argv` (without node and the script) and returns the exit code. */
export async function runCommandLine(argv: readonly string[]): Promise<number> {
  // The built-in runner has a command line of its own, and needs no Kiln configuration.
  if (argv[0] === 'runner') {
    return (await import('../runner/cli.ts')).runRunnerCli(argv.slice(1));
  }
  if (argv[0] === 'help' && argv[1] === 'runner') {
    return (await import('../runner/cli.ts')).runRunnerCli(['--help']);
  }
  const invocation = parseCommandLine(argv, COMMANDS);
  switch (invocation.kind) {
    case 'overview':
      (invocation.usage ? process.stderr : process.stdout).write(overview(LISTED));
      return invocation.usage ? EXIT.usage : EXIT.ok;
    case 'group':
      (invocation.usage ? process.stderr : process.stdout).write(
        groupHelp(invocation.group, COMMANDS),
      );
      return invocation.usage ? EXIT.usage : EXIT.ok;
    case 'help':
      process.stdout.write(commandHelp(invocation.command));
      return EXIT.ok;
    case 'run': {
      // Everything a command creates (data directory, database, its journals, logs, keys, the
      // serve lock, repositories) is private to Kiln's user: lib/private-modes.ts.
      restrictUmask();
      const file = invocation.values.config;
      await invocation.command.run({
        values: invocation.values,
        config: configLoader(typeof file === 'string' ? file : undefined),
      });
      return EXIT.ok;
    }
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/**
 * The exit code for an error a command threw, after printing it as one line: a mistake in the
 * command line or configuration, or one the domain names (a taken name, an unknown user), is a
 * usage error; anything else a failure. Never a stack trace.
 */
export function reportError(error: unknown): number {
  const code = errorCode(error);
  const usage =
    error instanceof ConfigError ||
    error instanceof UsageError ||
    isDomainError(error) ||
    code?.startsWith('ERR_PARSE_ARGS') === true;
  process.stderr.write(
    `kiln: ${firstLine(error instanceof Error ? error.message : String(error))}\n`,
  );
  return usage ? EXIT.usage : EXIT.failed;
}
