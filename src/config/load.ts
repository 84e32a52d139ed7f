import { existsSync, readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { closest } from '../lib/edit-distance.ts';
import { isRecord } from '../lib/narrow.ts';
import { type Config, type ConfigValues, toConfig } from './config.ts';
import { type ConfigKey, configSchema, envName } from './schema.ts';

/** A bad configuration value; its message is the one line printed before start-up stops. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type LoadOptions = {
  /** Path of the TOML file; when absent, `./service.toml` is read if it exists. */
  file?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
};

const KEYS = Object.keys(configSchema) as ConfigKey[];

/** The prefix every configuration variable shares; see `envName`. */
const ENV_PREFIX = 'SERVICE_';

/**
 * One warning line for each `SERVICE_*` variable in `env` that names no configuration key, with
 * the closest key that does: a typo such as SERVICE_HTTP_PROT would otherwise be ignored without
 * a word, and the server would run on its default. Not an error, so that a variable meant for
 * another program (or a key a newer version added) cannot stop Kiln from starting.
 */
export function unknownEnvironmentWarnings(
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const known = new Map(KEYS.map((key) => [envName(key), key]));
  return Object.keys(env)
    .filter((name) => name.startsWith(ENV_PREFIX) && !known.has(name))
    .sort()
    .map((name) => {
      const guess = closest(name, [...known.keys()]);
      const hint = guess ? `; did you mean ${guess} (${known.get(guess)})?` : '';
      return `config: unknown environment variable ${name} is ignored${hint}`;
    });
}

/** Flattens `{service: {http: {port: 1}}}` into `service.http.port`, keeping arrays as values. */
function flatten(table: Record<string, unknown>, prefix: string, out: Map<string, unknown>): void {
  for (const [name, value] of Object.entries(table)) {
    const key = prefix === '' ? name : `${prefix}.${name}`;
    if (isRecord(value)) {
      flatten(value, key, out);
    } else {
      out.set(key, value);
    }
  }
}

function readFile(path: string, explicit: boolean): Map<string, unknown> {
  const values = new Map<string, unknown>();
  if (!existsSync(path)) {
    if (explicit) throw new ConfigError(`config: file ${path} does not exist`);
    return values;
  }
  let document: Record<string, unknown>;
  try {
    document = parseToml(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : '';
    throw new ConfigError(`config: ${path} is not valid TOML: ${reason}`);
  }
  flatten(document, '', values);
  for (const key of values.keys()) {
    if (!(key in configSchema)) {
      throw new ConfigError(`config: unknown key ${key} in ${path} (see docs/configuration.md)`);
    }
  }
  return values;
}

/**
 * Reads the TOML file, then the environment (which wins), validates every key and returns the
 * frozen Config. Throws ConfigError with one line naming the key and the accepted form.
 */
export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  const fromFile = readFile(options.file ?? './service.toml', options.file !== undefined);
  const values: Record<string, unknown> = {};
  for (const key of KEYS) {
    const field = configSchema[key];
    const variable = envName(key);
    const envValue = env[variable];
    let raw: unknown;
    let source: string;
    if (envValue !== undefined) {
      raw = envValue;
      source = `environment ${variable}`;
    } else if (fromFile.has(key)) {
      raw = fromFile.get(key);
      source = 'config file';
    } else {
      values[key] = field.defaultValue;
      continue;
    }
    const parsed = field.parse(raw);
    if ('error' in parsed) {
      const shown = field.kind === 'secret' ? '(hidden)' : JSON.stringify(raw);
      throw new ConfigError(
        `config: ${key} (${source}) must be ${parsed.error}; got ${shown}`.slice(0, 400),
      );
    }
    values[key] = parsed.value;
  }
  return toConfig(values as ConfigValues);
}
