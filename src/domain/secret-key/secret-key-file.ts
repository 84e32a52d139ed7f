import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deriveSecretKey, openSecret, SecretBoxError, sealSecret } from '../ci/secret-box.ts';

/** The key Kiln made itself, in the data directory, when `service.secret-key` is unset. */
export const SECRET_KEY_FILE = 'secret-key';
/** A value sealed under the key in use when the first secret could be stored (see keyCheck). */
export const KEY_CHECK_FILE = 'secret-key.check';

const KEY_BYTES = 32;
const CHECK_TEXT = 'kiln secret key check';

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

/**
 * Seals a known text under `secretKey` into the data directory, once: the first key that serves
 * a directory is the one its stored secrets are sealed under, and `keyCheck` compares later keys
 * with it. Never overwritten, so a changed key cannot hide the change.
 */
export function writeKeyCheck(dataDir: string, secretKey: string): void {
  const path = join(resolve(dataDir), KEY_CHECK_FILE);
  writeNew(path, sealSecret(deriveSecretKey(secretKey), CHECK_TEXT, KEY_CHECK_FILE));
}

/**
 * Whether `secretKey` opens what the data directory's secrets were sealed under: `mismatch`
 * means CI secrets, webhook secrets and federation keys stored so far no longer decrypt.
 */
export function keyCheck(
  dataDir: string,
  secretKey: string | undefined,
): 'ok' | 'unchecked' | 'no key' | 'mismatch' {
  const sealed = readTrimmed(join(resolve(dataDir), KEY_CHECK_FILE));
  if (sealed === undefined) return 'unchecked';
  if (secretKey === undefined) return 'no key';
  try {
    openSecret(deriveSecretKey(secretKey), sealed, KEY_CHECK_FILE);
    return 'ok';
  } catch (error) {
    if (error instanceof SecretBoxError) return 'mismatch';
    throw error;
  }
}
