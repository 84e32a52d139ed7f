import { readFileSync } from 'node:fs';
import type { ReadStream } from 'node:tty';
import { errorCode } from '../lib/thrown.ts';
import { type OptionSpec, UsageError, type Values, warn } from './command.ts';

/**
 * Where a command may take a password from. Never only the command line: there it is visible to
 * every local user in the process list (and to npm, which echoes its arguments) and it stays in
 * the shell history. Hence, as `docker login` does, a file, standard input, or a prompt that
 * does not echo; `--password` still works, with a warning.
 */
export const PASSWORD_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'password-file': {
    type: 'string',
    value: 'PATH',
    help: 'read the password from this file (its first line)',
  },
  'password-stdin': { type: 'boolean', help: 'read the password from standard input' },
  password: {
    type: 'string',
    value: 'PW',
    help: 'the password itself (visible in the process list and shell history; avoid)',
  },
};

export const PASSWORD_NOTES = [
  'Without a password option, the password is asked for twice, without echo, when standard',
  'input is a terminal.',
];

/** The first line of a file or stream's text: the newline an editor or `echo` adds is not part of it. */
function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0] ?? '';
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** The password from whichever of PASSWORD_OPTIONS was given, or from a prompt on a terminal. */
export async function readPassword(values: Values, purpose: string): Promise<string> {
  const given = Object.keys(PASSWORD_OPTIONS).filter((name) => values[name] !== undefined);
  if (given.length > 1) {
    throw new UsageError('give only one of --password-file, --password-stdin and --password');
  }
  if (typeof values.password === 'string') {
    warn(
      'a password given with --password is visible to other users in the process list and stays in the shell history; use --password-file or --password-stdin',
    );
    return values.password;
  }
  const file = values['password-file'];
  if (typeof file === 'string') {
    try {
      return firstLine(readFileSync(file, 'utf8'));
    } catch (error) {
      const code = errorCode(error) ?? 'unreadable';
      throw new UsageError(`cannot read --password-file ${file} (${code})`);
    }
  }
  if (values['password-stdin'] === true) return firstLine(await readStdin());
  if (process.stdin.isTTY) {
    const first = await prompt(`${purpose}: `);
    const again = await prompt(`${purpose} (again): `);
    if (first !== again) throw new UsageError('the passwords do not match');
    return first;
  }
  throw new UsageError(
    'a password is needed: give --password-file PATH or --password-stdin (or run in a terminal to be asked)',
  );
}

/** Asks on the terminal with echo off: raw mode, so the typed characters are never shown. */
async function prompt(question: string): Promise<string> {
  const input = process.stdin as ReadStream;
  // Echo goes off before the question shows: whatever is typed after it is never displayed.
  input.setRawMode(true);
  process.stderr.write(question);
  input.setEncoding('utf8');
  input.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = '';
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === '\r' || char === '\n' || char === '\u0004') {
            input.off('data', onData);
            resolve(typed);
            return;
          }
          if (char === '\u0003') {
            input.off('data', onData);
            reject(new UsageError('cancelled'));
            return;
          }
          typed =
            char === '\u007f' || char === '\b' ? [...typed].slice(0, -1).join('') : typed + char;
        }
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    process.stderr.write('\n');
  }
}
