import type { Command, OptionSpec } from './command.ts';
import { GLOBAL_OPTIONS } from './parse.ts';

const PROGRAM = 'kiln';

/** `--username NAME`, `-h, --help`. */
function optionWords(name: string, spec: Pick<OptionSpec, 'short' | 'value'>): string {
  const long = spec.value ? `--${name} ${spec.value}` : `--${name}`;
  return spec.short ? `-${spec.short}, ${long}` : long;
}

/** `kiln token create --username NAME --name LABEL [options]`: required options spelt out. */
export function usageLine(command: Command): string {
  if (command.usage) return `${PROGRAM} ${command.usage}`;
  const required = Object.entries(command.options)
    .filter(([, spec]) => spec.required)
    .map(([name, spec]) => optionWords(name, spec));
  return [PROGRAM, command.name, ...required, '[options]'].join(' ');
}

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const entries = Object.entries(options).map(([name, spec]) => [
    optionWords(name, spec),
    spec.help,
  ]);
  const width = Math.max(...entries.map(([words]) => words?.length ?? 0));
  return entries.map(([words, help]) => `  ${(words ?? '').padEnd(width)}  ${help}`);
}

/** Help for one command: usage, what it does, every option, notes. */
export function commandHelp(command: Command): string {
  const lines = [
    `usage: ${usageLine(command)}`,
    '',
    command.summary,
    '',
    'Options:',
    ...optionLines({ ...command.options, ...GLOBAL_OPTIONS }),
  ];
  if (command.notes?.length) lines.push('', ...command.notes);
  return `${lines.join('\n')}\n`;
}

/** A line of the command list: a command, or a group handled elsewhere (the built-in runner). */
export type Listed = Pick<Command, 'name' | 'summary'>;

function commandList(commands: readonly Listed[]): string[] {
  const width = Math.max(...commands.map((command) => command.name.length));
  return commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
}

/** Every command with its summary, as `kiln --help` and a bare `kiln` print them. */
export function overview(commands: readonly Listed[]): string {
  return [
    'Kiln, a self-hosted git forge',
    '',
    `usage: ${PROGRAM} [--config FILE] <command> [options]`,
    '',
    'Commands:',
    ...commandList(commands),
    '',
    `Every command takes --config FILE (default ./service.toml) and --help; \`${PROGRAM} help <command>\` is the same.`,
    '',
  ].join('\n');
}

/** The commands of one group (`kiln user`). */
export function groupHelp(group: string, commands: readonly Command[]): string {
  const members = commands.filter((command) => command.name.startsWith(`${group} `));
  return [
    `usage: ${PROGRAM} ${group} <command> [options]`,
    '',
    'Commands:',
    ...commandList(members),
    '',
    `See \`${PROGRAM} ${group} <command> --help\` for a command's options.`,
    '',
  ].join('\n');
}
