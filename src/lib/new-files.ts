import { createWriteStream } from 'node:fs';
import { access, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-modes.ts';
import { errorCode } from './thrown.ts';

/** Whether `dir` holds nothing; a directory that does not exist holds nothing. */
export async function isEmptyDirectory(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  });
  return entries.length === 0;
}

/** Whether anything exists at `file`. */
export function pathExists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/**
 * Writes `content` to a file that must not exist yet (`EEXIST` otherwise), readable by this
 * account alone, making its missing parent directories private too.
 */
export async function writeNewPrivateFile(
  target: string,
  content: AsyncIterable<Uint8Array>,
): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
  await pipeline(content, createWriteStream(target, { flags: 'wx', mode: PRIVATE_FILE_MODE }));
}
