import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { errorCode } from '../lib/thrown.ts';

/** The file `serve` holds in a SQLite data directory for as long as it runs. */
export const SERVE_LOCK_FILE = 'kiln.pid';

/** Another live process serves the same SQLite database. */
export class ServeLockHeld extends Error {}

/** Gives the lock back (removes the file if it is still ours). */
export type ReleaseLock = () => void;

/**
 * Makes sure only one `serve` uses a SQLite database: two servers on one file would each keep
 * in-memory state (metering, caches, the change clock's view) the other cannot see, and share a
 * single writer. The lock is `<dataDir>/kiln.pid` holding the owner's PID, created exclusively.
 * A file left by a process that is gone (a crash, a kill -9) is taken over, so a restart is never
 * blocked; a live owner makes this throw `ServeLockHeld` with one line to show. With PostgreSQL
 * (`databaseUrl` set) there is no lock at all: replicas share the repository directory by design.
 * The CLI's other commands never take it, so they work while a server runs.
 */
export function lockServe(options: {
  dataDir: string;
  databaseUrl: string | undefined;
  pid?: number;
}): ReleaseLock {
  if (options.databaseUrl !== undefined) return () => {};
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, SERVE_LOCK_FILE);
  const pid = options.pid ?? process.pid;
  // Two rounds: a stale file is removed once, then created again exclusively, so two starting
  // servers racing for a stale lock cannot both win.
  for (let round = 0; round < 2; round++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      return () => {
        if (ownerOf(file) === pid) rmSync(file, { force: true });
      };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
    const owner = ownerOf(file);
    if (owner !== undefined && owner !== pid && isAlive(owner)) {
      throw new ServeLockHeld(
        `another Kiln server (pid ${owner}) is already serving the SQLite database in ${dataDir}; stop it first (its lock is ${file})`,
      );
    }
    rmSync(file, { force: true });
  }
  throw new ServeLockHeld(`could not take the lock ${file}; another server is starting`);
}

function ownerOf(file: string): number | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return /^\d{1,10}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this PID exists (signal 0 checks without sending anything). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return errorCode(error) === 'EPERM';
  }
}

/** The serve lock of a data directory, if there is one: its file, owner and whether it runs. */
export function serveLockState(
  dataDir: string,
): { file: string; pid: number | undefined; alive: boolean } | undefined {
  const file = join(resolve(dataDir), SERVE_LOCK_FILE);
  if (!existsSync(file)) return undefined;
  const pid = ownerOf(file);
  return { file, pid, alive: pid !== undefined && isAlive(pid) };
}
