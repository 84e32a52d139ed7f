import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

const scratch = Buffer.allocUnsafe(1024);

/**
 * A file of a few dozen bytes (HEAD, a loose ref), read synchronously in three system calls
 * (open, read, close); readFileSync also asks for the size and reads again to see the end, five
 * calls. Synchronous on purpose: the thread-pool round trips of an asynchronous read cost the
 * request thread more than the read itself. Larger files fall back to readFileSync.
 *
 * @throws the file system's error (ENOENT when there is no such file).
 */
export function readSmallFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const length = readSync(fd, scratch, 0, scratch.length, 0);
    if (length < scratch.length) return scratch.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8');
}
