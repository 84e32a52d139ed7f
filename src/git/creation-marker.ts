import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { errorCode } from '../lib/thrown.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * A repository is renamed into place before its database row exists, so a process killed in
 * between leaves a whole directory that no row claims. The marker written while the repository
 * is assembled names the host and process making it; it is removed once the row is stored. A
 * directory whose marker names a process of this host that is gone is debris of a creation that
 * died, whatever its age; without that proof only age can tell (another replica may be mid-way).
 */
const MARKER = 'kiln-creating';

/** Records, inside a repository being assembled, which process is making it. */
export async function writeCreationMarker(dir: string): Promise<void> {
  await writeFile(path.join(dir, MARKER), `${hostname()}\n${process.pid}\n`);
}

/** Removes the marker once the repository's row is stored; nothing when there is none. */
export async function clearCreationMarker(repo: RepoHandle): Promise<void> {
  await rm(path.join(repo.path, MARKER), { force: true });
}

/** Whether the repository was being made by a process of this host that no longer runs. */
export async function isAbandonedCreation(repo: RepoHandle): Promise<boolean> {
  const text = await readFile(path.join(repo.path, MARKER), 'utf8').catch(() => undefined);
  const [host, pidText] = text?.split('\n') ?? [];
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists under another user, so it is alive.
    return errorCode(error) === 'ESRCH';
  }
}

/** When a repository's directory last changed, in epoch milliseconds; undefined when there is none. */
export async function directoryChangedAt(repo: RepoHandle): Promise<number | undefined> {
  const info = await stat(repo.path).catch(() => undefined);
  return info?.mtimeMs;
}
