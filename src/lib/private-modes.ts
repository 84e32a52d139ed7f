import { chmod, lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Files on disk: the data directory holds the database (password hashes, tokens, secrets), its
 * journals, CI logs, keys and every repository, and nothing there is for another user of the host.
 * So the directory and every directory in it are 0700 and its files 0600 (git's own read-only
 * objects 0400): `kiln` runs with umask 077 (cli/run.ts), so whatever it or the git it starts
 * creates is private, and `serve`, `migrate` and `restore` take away the group and other bits of
 * what an older Kiln, an operator or another tool left wider (`tightenDataDir`), saying so once.
 * `kiln doctor` reports what is still wider (`widerThanPrivate`). Inside a repository directory
 * nothing is walked: the repository's own directory at 0700 already shuts everyone else out.
 */

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Group and other bits: none may be set anywhere in the data directory. */
const SHARED_BITS = 0o077;

/** Makes everything this process creates from now on private to its user. */
export function restrictUmask(): void {
  process.umask(0o077);
}

/** A path in the data directory whose mode lets group or others in. */
export type WideMode = {
  readonly path: string;
  readonly mode: number;
  readonly directory: boolean;
};

/** Whether `relative` (to the data directory) is a repository directory, not walked into. */
function isRepositoryDir(relative: string): boolean {
  const parts = relative.split(path.sep);
  return parts.length === 3 && parts[0] === 'repositories' && parts[2]!.endsWith('.git');
}

/** Every directory and regular file of the data directory with group or other bits set. */
export async function widerThanPrivate(dataDir: string, limit = 1000): Promise<WideMode[]> {
  const found: WideMode[] = [];
  async function visit(relative: string): Promise<void> {
    if (found.length >= limit) return;
    const absolute = path.join(dataDir, relative);
    const stats = await lstat(absolute).catch(() => undefined);
    if (!stats || !(stats.isDirectory() || stats.isFile())) return;
    if ((stats.mode & SHARED_BITS) !== 0) {
      found.push({ path: absolute, mode: stats.mode & 0o7777, directory: stats.isDirectory() });
    }
    if (!stats.isDirectory() || (relative && isRepositoryDir(relative))) return;
    const entries = await readdir(absolute).catch(() => []);
    for (const entry of entries.sort()) await visit(relative ? path.join(relative, entry) : entry);
  }
  await visit('');
  return found;
}

/**
 * Takes group and other bits off everything `widerThanPrivate` finds. Returns what it changed.
 * Fixed rather than only warned about: nothing Kiln keeps there is meant for anyone else, and a
 * readable database is a leak from the moment it is readable.
 */
export async function tightenDataDir(dataDir: string): Promise<WideMode[]> {
  const wide = await widerThanPrivate(dataDir, Number.POSITIVE_INFINITY);
  for (const entry of wide) await chmod(entry.path, entry.mode & ~SHARED_BITS);
  return wide;
}
