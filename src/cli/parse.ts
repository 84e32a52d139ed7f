import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { closest, editDistance } from '../lib/edit-distance.ts';
import { type Command, UsageError, type Values } from './command.ts';

/** Options every command takes, before or after the command's words (`kiln --config F migrate`). */
export const GLOBAL_OPTIONS = {
  config: {
    type: 'string',
    value: 'FILE',
    help: 'configuration file (default ./service.toml when it exists)',
  },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const;

/** What the command line asks for. */
export type Invocation =
  /** The list of commands; `usage` when nothing was asked (then on stderr, exit 2). */
  | { readonly kind: 'overview'; readonly usage: boolean }
  /** The commands of one group (`kiln user`); `usage` when a sub-command was missing. */
  | { readonly kind: 'group'; readonly group: string; readonly usage: boolean }
  | { readonly kind: 'help'; readonly command: Command }
  | { readonly kind: 'run'; readonly command: Command; readonly values: Values };

/** Leading global options, taken off `argv` before the command's words. */
type Globals = { config?: string; help: boolean };

function takeGlobal(argv: readonly string[], at: number, globals: Globals): number | undefined {
  const token = argv[at] ?? '';
  if (token === '-h' || token === '--help') {
    globals.help = true;
    return at + 1;
  }
  if (token.startsWith('--config=')) {
    globals.config = token.slice('--config='.length);
    return at + 1;
  }
  if (token === '--config') {
    const value = argv[at + 1];
    if (value === undefined) throw new UsageError("option '--config FILE' argument missing");
    globals.config = value;
    return at + 2;
  }
  return undefined;
}

/**
 * Reads `argv` as git and gitea do: global options anywhere, then the command's words (`user
 * create`), then its options; `help WORDS` and `--help` show help instead of running anything.
 */
export function parseCommandLine(
  argv: readonly string[],
  commands: readonly Command[],
): Invocation {
  const byName = new Map(commands.map((command) => [command.name, command]));
  const groups = new Set(
    commands.flatMap((c) => (c.name.includes(' ') ? [c.name.split(' ')[0]] : [])),
  );
  const globals: Globals = { help: false };
  const words: string[] = [];
  let at = 0;
  while (at < argv.length && !byName.has(words.join(' '))) {
    const next = takeGlobal(argv, at, globals);
    if (next !== undefined) {
      at = next;
      continue;
    }
    const token = argv[at] ?? '';
    if (token.startsWith('-')) {
      if (words.length === 0) throw new UsageError(`unknown option '${token}' (see kiln --help)`);
      break;
    }
    words.push(token);
    at += 1;
    if (words[0] === 'help') continue;
    if (words.length === 1 && groups.has(token)) continue;
    if (!byName.has(words.join(' '))) break;
  }
  if (words[0] === 'help') return helpFor(words.slice(1), byName, groups);
  const name = words.join(' ');
  const command = byName.get(name);
  if (!command) {
    if (words.length === 0) return { kind: 'overview', usage: !globals.help };
    if (words.length === 1 && groups.has(name)) {
      return { kind: 'group', group: name, usage: !globals.help };
    }
    throw unknownCommand(words, byName);
  }
  if (globals.help) return { kind: 'help', command };
  const { values } = parseArgs({
    args: argv.slice(at),
    options: optionsFor(command),
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { kind: 'help', command };
  const config = typeof values.config === 'string' ? values.config : globals.config;
  for (const [option, spec] of Object.entries(command.options)) {
    if (spec.required && (values[option] === undefined || values[option] === '')) {
      throw new UsageError(`--${option} is required`);
    }
  }
  return { kind: 'run', command, values: { ...values, config } };
}

function helpFor(
  words: readonly string[],
  byName: ReadonlyMap<string, Command>,
  groups: ReadonlySet<string | undefined>,
): Invocation {
  const name = words.join(' ');
  if (name === '') return { kind: 'overview', usage: false };
  const command = byName.get(name);
  if (command) return { kind: 'help', command };
  if (groups.has(name)) return { kind: 'group', group: name, usage: false };
  throw unknownCommand(words, byName);
}

/** A usage error for words that name no command, suggesting a near one (edit distance ≤ 2). */
function unknownCommand(words: readonly string[], byName: ReadonlyMap<string, Command>) {
  const name = words.join(' ');
  const names = [...byName.keys()];
  const candidates = [...new Set([...names, ...names.map((n) => n.split(' ')[0] ?? n)])];
  const guess = closest(name, candidates);
  const hint = guess && editDistance(name, guess) <= 2 ? `; did you mean "${guess}"?` : '';
  return new UsageError(`unknown command "${name}"${hint} (see kiln --help)`);
}

function optionsFor(command: Command): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = {};
  for (const [name, spec] of Object.entries({ ...command.options, ...GLOBAL_OPTIONS })) {
    options[name] = {
      type: spec.type,
      ...('short' in spec && spec.short ? { short: spec.short } : {}),
    };
  }
  return options;
}
