import { KEY_CHECK_FILE, readKeyCheckFile, writeKeyCheckFile } from '../../lib/secret-key-file.ts';
import { deriveSecretKey, openSecret, SecretBoxError, sealSecret } from '../ci/secret-box.ts';

const CHECK_TEXT = 'kiln secret key check';

/**
 * Seals a known text under `secretKey` into the data directory, once: the first key that serves
 * a directory is the one its stored secrets are sealed under, and `keyCheck` compares later keys
 * with it. Never overwritten, so a changed key cannot hide the change.
 */
export function writeKeyCheck(dataDir: string, secretKey: string): void {
  writeKeyCheckFile(dataDir, sealSecret(deriveSecretKey(secretKey), CHECK_TEXT, KEY_CHECK_FILE));
}

/**
 * Whether `secretKey` opens what the data directory's secrets were sealed under: `mismatch`
 * means CI secrets, webhook secrets and federation keys stored so far no longer decrypt.
 */
export function keyCheck(
  dataDir: string,
  secretKey: string | undefined,
): 'ok' | 'unchecked' | 'no key' | 'mismatch' {
  const sealed = readKeyCheckFile(dataDir);
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
