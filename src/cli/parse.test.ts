import { describe, expect, it } from 'vitest';
import type { Command } from './command.ts';
import { parseCommandLine } from './parse.ts';

const run = async () => {};
const COMMANDS: Command[] = [
  { name: 'serve', summary: 'serve', options: {}, run },
  {
    name: 'user create',
    summary: 'create',
    options: {
      username: { type: 'string', help: 'name', required: true },
      admin: { type: 'boolean', help: 'admin' },
    },
    run,
  },
  { name: 'user list', summary: 'list', options: {}, run },
];

const parse = (argv: string[]) => parseCommandLine(argv, COMMANDS);

describe('parseCommandLine', () => {
  it('takes --config before the command, after it, or as --config=FILE', () => {
    for (const argv of [
      ['--config', 'a.toml', 'user', 'create', '--username', 'x'],
      ['user', 'create', '--username', 'x', '--config', 'a.toml'],
      ['--config=a.toml', 'user', 'create', '--username', 'x'],
    ]) {
      expect(parse(argv)).toMatchObject({
        kind: 'run',
        command: { name: 'user create' },
        values: { username: 'x', config: 'a.toml' },
      });
    }
  });

  it('a --config after the command wins over one before it', () => {
    expect(parse(['--config', 'a', 'serve', '--config', 'b'])).toMatchObject({
      values: { config: 'b' },
    });
  });

  it('shows help for --help and -h anywhere, and for help WORDS', () => {
    for (const argv of [
      ['user', 'list', '--help'],
      ['user', 'list', '-h'],
      ['-h', 'user', 'list'],
      ['help', 'user', 'list'],
    ]) {
      expect(parse(argv)).toMatchObject({ kind: 'help', command: { name: 'user list' } });
    }
    expect(parse(['help'])).toEqual({ kind: 'overview', usage: false });
    expect(parse(['--help'])).toEqual({ kind: 'overview', usage: false });
    expect(parse(['help', 'user'])).toEqual({ kind: 'group', group: 'user', usage: false });
    expect(parse(['user', '--help'])).toEqual({ kind: 'group', group: 'user', usage: false });
  });

  it('answers nothing, or a group alone, with usage', () => {
    expect(parse([])).toEqual({ kind: 'overview', usage: true });
    expect(parse(['user'])).toEqual({ kind: 'group', group: 'user', usage: true });
  });

  it('refuses unknown commands and options, suggesting a near command', () => {
    expect(() => parse(['usr', 'list'])).toThrow('unknown command "usr"; did you mean "user"?');
    expect(() => parse(['user', 'delete'])).toThrow('unknown command "user delete"');
    expect(() => parse(['frobnicate'])).toThrow(/^unknown command "frobnicate" \(see/);
    expect(() => parse(['--verbose', 'serve'])).toThrow("unknown option '--verbose'");
    expect(() => parse(['serve', '--verbose'])).toThrow(/--verbose/);
    expect(() => parse(['help', 'nothing'])).toThrow('unknown command "nothing"');
    expect(() => parse(['--config'])).toThrow('argument missing');
  });

  it('checks required options before anything runs', () => {
    expect(() => parse(['user', 'create'])).toThrow('--username is required');
    expect(() => parse(['user', 'create', '--username', ''])).toThrow('--username is required');
    expect(parse(['user', 'create', '--username', 'x', '--admin'])).toMatchObject({
      values: { admin: true },
    });
  });
});
