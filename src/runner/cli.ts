/**
 * `kiln runner register|daemon`: the built-in runner's command line. Kept apart from Kiln's own
 * commands because the runner is a separate client of the runner protocol: it needs no
 * configuration file and no database.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runDaemon } from './daemon.ts';
import { hostEnvironment } from './host-env.ts';
import { ISOLATION_MODES, type IsolationMode } from './isolation.ts';
import { parseLabels } from './labels.ts';
import { RegisterError, register } from './register.ts';
import { StateFileError } from './state-file.ts';
import { errorCode, errorMessage } from './thrown.ts';

const USAGE = `Usage:
  kiln runner register --instance URL --token TOKEN [--name NAME] [--labels a,b] [--ephemeral] [--file PATH]
  kiln runner daemon [--file PATH] [--capacity N] [--labels a,b] [--workdir DIR] [--grace SECONDS]
                     [--once] [--isolation auto|user|bwrap|none] [--job-user NAME]

register  registers this host as a runner and saves the registration in --file (default ./.runner)
daemon    polls the server for jobs and runs them on this host, --capacity at a time (default 1);
          on SIGTERM or SIGINT it stops polling, lets running jobs finish for --grace seconds
          (default 30), then cancels them; with --once it takes one task, runs it and exits 0
          (exit 1 if it cannot declare itself or reach the server)

Isolation keeps jobs from the runner's token. Started as root, the daemon runs every step as
--job-user (default kiln-runner-job if that account exists, else nobody) and, where bubblewrap
works, in a sandbox; otherwise in a sandbox where bubblewrap works; otherwise unisolated, and
then it refuses jobs of pull requests from forks. --isolation forces one way (default auto);
the start-up line says which is used. As root, --workdir defaults to /var/lib/kiln-runner.
`;

/** A mistake on the command line: printed with the usage, exit code 2. */
class RunnerUsageError extends Error {}

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`);
}

function positiveNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0)
    throw new RunnerUsageError(`--${name} must be a number`);
  return number;
}

function isIsolationMode(value: string): value is IsolationMode {
  return ISOLATION_MODES.some((mode) => mode === value);
}

/**
 * Root's home is closed to the job account, so a root daemon keeps its work where that account
 * can reach its own task directories.
 */
function defaultWorkRoot(): string {
  if (process.getuid?.() === 0) return '/var/lib/kiln-runner';
  return join(homedir(), '.cache', 'kiln-runner');
}

/** The options of `kiln runner register` and `kiln runner daemon` (the docs are checked against them). */
export const RUNNER_OPTIONS = {
  register: {
    instance: { type: 'string' },
    token: { type: 'string' },
    name: { type: 'string' },
    labels: { type: 'string' },
    ephemeral: { type: 'boolean' },
    file: { type: 'string' },
  },
  daemon: {
    file: { type: 'string' },
    capacity: { type: 'string' },
    labels: { type: 'string' },
    workdir: { type: 'string' },
    grace: { type: 'string' },
    once: { type: 'boolean' },
    isolation: { type: 'string' },
    'job-user': { type: 'string' },
  },
} as const;

async function registerCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: RUNNER_OPTIONS.register,
    strict: true,
  });
  if (!values.instance) throw new RunnerUsageError('--instance is required');
  if (!values.token) throw new RunnerUsageError('--token is required');
  await register({
    instance: values.instance,
    token: values.token,
    ...(values.name ? { name: values.name } : {}),
    labels: parseLabels(values.labels),
    ephemeral: values.ephemeral === true,
    file: values.file ?? '.runner',
    log,
  });
  return 0;
}

async function daemonCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: RUNNER_OPTIONS.daemon,
    strict: true,
  });
  const isolation = values.isolation ?? 'auto';
  if (!isIsolationMode(isolation))
    throw new RunnerUsageError(`--isolation must be one of ${ISOLATION_MODES.join(', ')}`);
  const capacity = Math.max(1, Math.floor(positiveNumber(values.capacity, 'capacity', 1)));
  const stopper = new AbortController();
  const stop = (signal: string) => {
    if (stopper.signal.aborted) return;
    log(`${signal} received: no new jobs`);
    stopper.abort();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return runDaemon({
    file: values.file ?? '.runner',
    capacity,
    graceMs: positiveNumber(values.grace, 'grace', 30) * 1000,
    ...(values.labels ? { labels: parseLabels(values.labels) } : {}),
    workRoot: values.workdir ?? defaultWorkRoot(),
    hostEnv: hostEnvironment(process.env),
    killGraceMs: 3000,
    stop: stopper.signal,
    once: values.once === true,
    isolation,
    ...(values['job-user'] !== undefined ? { jobUser: values['job-user'] } : {}),
    log,
  });
}

/** Runs `kiln runner …` with the words after `runner`; answers the exit code. */
export async function runRunnerCli(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'register') return await registerCommand(rest);
    if (sub === 'daemon') return await daemonCommand(rest);
    process.stdout.write(USAGE);
    return sub === undefined || sub === '--help' || sub === '-h' ? 0 : 2;
  } catch (error) {
    if (error instanceof RunnerUsageError || errorCode(error)?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`kiln runner: ${errorMessage(error)}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof RegisterError || error instanceof StateFileError) {
      process.stderr.write(`kiln runner: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
