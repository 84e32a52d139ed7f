/**
 * The files a step writes to talk back to the runner: `GITHUB_ENV` and `GITHUB_OUTPUT` (lines
 * `name=value`, or `name<<DELIMITER` … `DELIMITER` for values spanning lines), `GITHUB_PATH` (one
 * directory a line) and `GITHUB_STEP_SUMMARY` (Markdown).
 */
import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { errorCode } from '../thrown.ts';

/** A value file that does not follow the format: the step fails with this message. */
export class EnvFileError extends Error {}

/** Parses the `name=value` / heredoc format shared by GITHUB_ENV, GITHUB_OUTPUT and GITHUB_STATE. */
export function parseKeyValueFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    const equals = line.indexOf('=');
    if (heredoc && (equals < 0 || equals > line.indexOf('<<'))) {
      const [, name = '', delimiter = ''] = heredoc;
      const body: string[] = [];
      let closed = false;
      for (i++; i < lines.length; i++) {
        if (lines[i] === delimiter) {
          closed = true;
          break;
        }
        body.push(lines[i] ?? '');
      }
      if (!closed) throw new EnvFileError(`missing delimiter "${delimiter}" after "${name}"`);
      values[name] = body.join('\n');
    } else if (equals > 0) {
      values[line.slice(0, equals)] = line.slice(equals + 1);
    } else {
      throw new EnvFileError(`invalid line "${line}" (expected name=value or name<<DELIMITER)`);
    }
  }
  return values;
}

/** Parses GITHUB_PATH: the directories to put in front of PATH, in file order. */
export function parsePathFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The four files of one step, created empty before it runs. */
export type StepFiles = {
  readonly env: string;
  readonly output: string;
  readonly path: string;
  readonly summary: string;
  readonly state: string;
};

/** What a step left in its files. */
export type StepFileValues = {
  readonly env: Record<string, string>;
  readonly outputs: Record<string, string>;
  readonly path: string[];
  readonly summary: string;
  readonly state: Record<string, string>;
};

/** Creates fresh, empty files for step `id` under `dir`. */
export async function createStepFiles(dir: string, id: string): Promise<StepFiles> {
  await mkdir(dir, { recursive: true });
  const files: StepFiles = {
    env: join(dir, `set_env_${id}`),
    output: join(dir, `set_output_${id}`),
    path: join(dir, `add_path_${id}`),
    summary: join(dir, `step_summary_${id}`),
    state: join(dir, `save_state_${id}`),
  };
  await Promise.all(
    Object.values(files).map((file) => writeFile(file, '', { mode: 0o600, flag: 'wx' })),
  );
  return files;
}

/**
 * One step file as the step left it. The step owns the directory, so it may have put a link to
 * something only the runner can read (the registration file) in the file's place: the file is
 * read only if it is still a regular file with one name, and never through a symbolic link.
 */
async function readStepFile(path: string): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return '';
    throw new EnvFileError(`${basename(path)} was replaced by something the runner does not read`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.nlink !== 1) {
      throw new EnvFileError(
        `${basename(path)} was replaced by something the runner does not read`,
      );
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Reads back what the step wrote. */
export async function readStepFiles(files: StepFiles): Promise<StepFileValues> {
  const [env, output, path, summary, state] = await Promise.all(
    [files.env, files.output, files.path, files.summary, files.state].map(readStepFile),
  );
  return {
    env: parseKeyValueFile(env ?? ''),
    outputs: parseKeyValueFile(output ?? ''),
    path: parsePathFile(path ?? ''),
    summary: summary ?? '',
    state: parseKeyValueFile(state ?? ''),
  };
}
