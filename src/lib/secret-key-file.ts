import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The key Kiln made itself, in the data directory, when `service.secret-key` is unset. */
export const SECRET_KEY_FILE = 'secret-key';
/** A value sealed under the first key that served the directory (domain/secret-key/key-check.ts). */
export const KEY_CHECK_FILE = 'secret-key.check';

const KEY_BYTES = 32;

function readTrimmed(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return text === '' ? undefined : text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes `text` to `path` only if nothing is there yet (0600); false when something was. */
function writeNew(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${text}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The key a data directory holds, if Kiln made one there. */
export function readSecretKeyFile(dataDir: string): string | undefined {
  return readTrimmed(join(resolve(dataDir), SECRET_KEY_FILE));
}

/**
 * The data directory's key, made (32 random bytes, base64url, mode 0600) when there is none.
 * Created exclusively: two processes starting on one directory at once end up with the same key.
 */
export function ensureSecretKeyFile(dataDir: string): { key: string; created: boolean } {
  const path = join(resolve(dataDir), SECRET_KEY_FILE);
  const created = writeNew(path, randomBytes(KEY_BYTES).toString('base64url'));
  const key = readTrimmed(path);
  if (key === undefined) throw new Error(`${path} is empty; remove it and start again`);
  return { key, created };
}

/** The sealed check value of a data directory (domain/secret-key/key-check.ts), if any. */
export function readKeyCheckFile(dataDir: string): string | undefined {
  return readTrimmed(join(resolve(dataDir), KEY_CHECK_FILE));
}

/** Writes the sealed check value, only if the data directory has none yet: never replaced. */
export function writeKeyCheckFile(dataDir: string, sealed: string): void {
  writeNew(join(resolve(dataDir), KEY_CHECK_FILE), sealed);
}
