import type { App } from '../app.ts';
import type { Config } from '../config/config.ts';

/** A mistake by whoever ran the command: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** One option of a command, as `node:util` parseArgs takes it plus what help shows. */
export type OptionSpec = {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The placeholder help shows after the option: `--username NAME`. */
  readonly value?: string;
  readonly help: string;
  /** Missing, the command stops with `--NAME is required` before it runs. */
  readonly required?: boolean;
};

export type Values = Readonly<Record<string, string | boolean | undefined>>;

export type CommandContext = {
  readonly values: Values;
  /** The configuration (the --config file, then SERVICE_* variables), read on first call. */
  config(): Config;
};

/** One command: a word (`serve`) or a group and a word (`user create`). */
export type Command = {
  readonly name: string;
  readonly summary: string;
  /** The usage line after `kiln`, where the one made from the required options says too little. */
  readonly usage?: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Lines help adds after the options (where a value may also come from, examples). */
  readonly notes?: readonly string[];
  run(context: CommandContext): Promise<void>;
};

/** The value of a string option, or undefined when it was not given. */
export function stringValue(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** The value of a string option the command cannot do without (parse checks `required`). */
export function requiredValue(values: Values, name: string): string {
  const value = stringValue(values, name);
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/**
 * Runs `work` against a Kiln built from the configuration (applying pending migrations, as every
 * entry point does) and closes it afterwards, whether `work` succeeded or not. The app is
 * imported here, not at the top, so that `--help` and usage errors never load it.
 */
export async function withApp<T>(config: Config, work: (app: App) => Promise<T>): Promise<T> {
  const { createApp } = await import('../app.ts');
  const app = await createApp(config);
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

/** Writes one line on stdout: what a command did, or what it was asked for. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Writes one warning line on stderr. */
export function warn(line: string): void {
  process.stderr.write(`kiln: warning: ${line}\n`);
}
