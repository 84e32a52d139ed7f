import { randomUUID } from 'node:crypto';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../lib/private-modes.ts';
import { checkHostKey, UnusableHostKeyError } from './host-key-check.ts';
import { type HostKeyType, makeOpensshPrivateKey } from './openssh-private-key.ts';

/** The host keys, by the file names OpenSSH gives them, and of which type each is. */
const HOST_KEYS = [
  { file: 'ssh_host_ed25519_key', type: 'ed25519' },
  { file: 'ssh_host_rsa_key', type: 'rsa' },
] as const;

/**
 * `bytes`, the host key read from `path`, once node:crypto has checked that it is one. The SSH
 * library only loads with the first connection, so without this a damaged key would let the
 * server start and then fail every handshake: it must stop the start instead, with one line.
 */
function usableHostKey(path: string, type: HostKeyType, bytes: Buffer): Buffer {
  try {
    checkHostKey(bytes, type);
  } catch (error) {
    if (!(error instanceof UnusableHostKeyError)) throw error;
    throw new Error(
      `the SSH host key ${path} cannot be used: ${error.message}; restore it from a backup, or delete it to have a new one made (clients will then warn that the host key changed)`,
    );
  }
  return bytes;
}

/**
 * The server's host keys (ed25519 and RSA) from `<dataDir>/ssh/`, made on first start and read
 * as they are ever after: a host key that changed would make every client refuse the server.
 * Replicas sharing the data directory share the keys. Each key is written to a file of its own
 * and then linked into place, which fails if another process got there first, so two replicas
 * starting at once never serve different keys nor read half a file. Mode 0600.
 */
export async function loadHostKeys(dataDir: string): Promise<Buffer[]> {
  const dir = join(dataDir, 'ssh');
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const keys: Buffer[] = [];
  for (const { file, type } of HOST_KEYS) {
    const target = join(dir, file);
    const existing = await readFile(target).catch(() => undefined);
    if (existing) {
      keys.push(usableHostKey(target, type, existing));
      continue;
    }
    const temporary = join(dir, `.${file}.${randomUUID()}`);
    await writeFile(temporary, await makeOpensshPrivateKey(type), {
      mode: PRIVATE_FILE_MODE,
      flag: 'wx',
    });
    await chmod(temporary, PRIVATE_FILE_MODE);
    try {
      await link(temporary, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await unlink(temporary);
    }
    keys.push(await readFile(target));
  }
  return keys;
}
