import type { Dir } from 'node:fs';
import { opendir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { mapLimited } from '../lib/map-limited.ts';
import { errorCode } from '../lib/thrown.ts';
import { hasAlternates, objectsDir, readAlternates } from './object-store.ts';
import type { RepoHandle, RepoPaths } from './repo-paths.ts';

/**
 * Which repositories borrow which object stores, read from the alternates files themselves
 * rather than from anything the database says about forks: git serves whatever the files name,
 * so only the files can say what a repository may hand out.
 */

/** One line of one repository's `objects/info/alternates`. */
export interface Loan {
  /** The repository that borrows. */
  readonly borrower: RepoHandle;
  /** The object directory it borrows from, absolute. */
  readonly store: string;
  /**
   * The repository under the root that store belongs to; undefined when it is anything else
   * (a path outside the root, a temp directory, a directory that is not a repository's).
   */
  readonly lender: RepoHandle | undefined;
}

/** The repository whose object directory `store` is, when it is one of the root's. */
function lenderOf(paths: RepoPaths, store: string): RepoHandle | undefined {
  const parts = path.relative(paths.root, store).split(path.sep);
  if (parts.length !== 3 || parts[2] !== 'objects' || !parts[1]?.endsWith('.git')) return undefined;
  const [owner, dir] = parts as [string, string, string];
  try {
    // Not remembered: the scan meets every repository once, and no request asked for them.
    const handle = paths.unremembered({ owner, name: dir.slice(0, -'.git'.length) });
    // Repository directories are lowercased; a differently cased one is not Kiln's.
    return objectsDir(handle.path) === store ? handle : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Directory listings and alternates reads kept in flight at once: enough to keep the thread pool
 * busy (the scan runs before the server listens, over every repository), few enough not to
 * starve other file work when it runs later, on a repository made private or deleted.
 */
const READS_IN_FLIGHT = 16;

async function listDir(dir: string): Promise<string[]> {
  return readdir(dir).catch((error: unknown): string[] => {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  });
}

/**
 * The names in `dir` a few at a time (nothing when it is gone): an owner's listing may hold
 * 10,000 names, which as one array would live through the whole scan and into old space.
 */
async function* namesIn(dir: string): AsyncGenerator<string> {
  let opened: Dir;
  try {
    opened = await opendir(dir, { bufferSize: 128 });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw error;
  }
  for await (const entry of opened) yield entry.name;
}

/**
 * Every loan of every repository under the root. One directory listing per owner and one stat
 * per repository; only a repository with an alternates file is read, and only it gets a handle.
 * The scan runs at start-up over every repository, so it allocates next to nothing for the many
 * that borrow nothing: what it allocated for each of 10,000 outlived the young generation and
 * stayed in the process's resident memory until the next full collection.
 */
export async function listLoans(paths: RepoPaths): Promise<Loan[]> {
  const owners = (await listDir(paths.root)).filter((owner) => !owner.startsWith('.'));
  let looked = 0;
  const perOwner = await mapLimited(owners, READS_IN_FLIGHT, async (owner) => {
    const loans: Loan[] = [];
    for await (const dir of namesIn(path.join(paths.root, owner))) {
      if (!dir.endsWith('.git')) continue;
      // A stat is synchronous: let other work in between runs of them when the scan happens
      // while serving.
      if (++looked % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      const objects = objectsDir(path.join(paths.root, owner, dir));
      if (!hasAlternates(objects)) continue;
      const borrower = lenderOf(paths, objects);
      if (!borrower) continue;
      for (const store of await readAlternates(objects)) {
        loans.push({ borrower, store, lender: lenderOf(paths, store) });
      }
    }
    return loans;
  });
  return perOwner.flat();
}

/** Repositories looked at between two turns of the event loop in `listLoans`. */
const YIELD_EVERY = 256;

/**
 * Stops a repository borrowing at all, at the price of the objects it reached through the loan:
 * for a repository that could not be given copies of its own, serving nothing of what it
 * borrowed is better than serving it to readers it was not meant for. The file is kept beside,
 * as `alternates.refused`, for an operator to look at.
 */
export async function refuseLoans(repo: RepoHandle): Promise<void> {
  const file = path.join(objectsDir(repo.path), 'info', 'alternates');
  await rename(file, `${file}.refused`).catch((error: unknown) => {
    if (errorCode(error) !== 'ENOENT') throw error;
  });
}
