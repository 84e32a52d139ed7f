import { type Dirent, lstatSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { errorCode } from '../lib/thrown.ts';
import { isSha } from './ref-names.ts';
import { readSmallFile } from './small-file.ts';

/**
 * Every ref of a repository read from its files, as `git for-each-ref` would list them, without
 * starting git: for a dump, which reads the refs of every repository before it copies any object
 * (see repository-dump.ts). Starting one git process per repository cost a dump about 20 ms of
 * the main thread each (fork and exec are synchronous in Node), more than the copy of a small
 * repository.
 *
 * Git's files backend keeps a ref either loose (`refs/…`, one file holding an object name or
 * `ref: <target>`) or in `packed-refs`, a loose ref winning over a packed one. Both are replaced
 * whole by renaming a lock file over them, so each read sees an old or a new value, never a torn
 * one. Loose refs are read before packed-refs, as git reads them: a ref deleted meanwhile (git
 * rewrites packed-refs first, then unlinks the loose file) is seen with its old value or not at
 * all, and in both cases its objects are on disk.
 */

/** How many levels of `ref: …` a symbolic ref may go through before it counts as broken. */
const SYMREF_DEPTH = 5;
/**
 * Loose refs are read synchronously (a few dozen bytes each, small-file.ts), this many between
 * turns of the event loop, so that thousands of them not yet packed never hold it for long.
 */
const READS_PER_TURN = 64;

/** A ref's stored value: an object name, or `ref: <full ref>` for a symbolic ref. */
type Stored = Map<string, string>;

async function entriesOf(dir: string): Promise<Dirent[]> {
  return readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  });
}

async function readLoose(gitDir: string, root: string, into: Stored): Promise<void> {
  let reads = 0;
  async function walk(relative: string): Promise<void> {
    for (const entry of await entriesOf(path.join(gitDir, relative))) {
      const ref = `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(ref);
      else if (entry.isFile() && !entry.name.endsWith('.lock')) {
        if (++reads % READS_PER_TURN === 0) await turn();
        const value = readLooseRef(path.join(gitDir, ref));
        if (value !== undefined) into.set(ref, value.trim());
      }
    }
  }
  await walk(root);
}

/** A loose ref's text, or undefined when it is gone since the listing (deleted, or packed). */
function readLooseRef(file: string): string | undefined {
  try {
    return readSmallFile(file);
  } catch {
    return undefined;
  }
}

async function readPacked(gitDir: string, roots: readonly string[], into: Stored): Promise<void> {
  const file = path.join(gitDir, 'packed-refs');
  // Most repositories between two housekeepings have none: a stat that answers so costs a few
  // microseconds, where a read that fails costs an error and its stack.
  if (statSync(file, { throwIfNoEntry: false }) === undefined) return;
  const packed = await readFile(file, 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    // `# pack-refs with: …` is the header, `^<sha>` the peeled target of the tag above.
    const space = line.indexOf(' ');
    if (space <= 0 || line.startsWith('#') || line.startsWith('^')) continue;
    const ref = line.slice(space + 1);
    if (!into.has(ref) && roots.some((root) => ref.startsWith(`${root}/`))) {
      into.set(ref, line.slice(0, space));
    }
  }
}

function resolve(stored: Stored, ref: string): string | undefined {
  let value = stored.get(ref);
  for (let depth = 0; value?.startsWith('ref:') && depth < SYMREF_DEPTH; depth++) {
    value = stored.get(value.slice('ref:'.length).trim());
  }
  return value !== undefined && isSha(value) ? value : undefined;
}

/**
 * Whether the repository keeps its refs in files that `readRefSnapshot` understands; the
 * reftable backend (a `reftable` directory) does not.
 */
export function hasRefFiles(gitDir: string): boolean {
  // Asked before every listing: a stat that finds nothing throws nothing this way.
  return lstatSync(path.join(gitDir, 'reftable'), { throwIfNoEntry: false }) === undefined;
}

/**
 * The refs under `roots` (full ref directories such as `refs/heads`; every ref by default) with
 * the object each names, symbolic refs resolved and broken ones left out. A symbolic ref is
 * resolved only through refs under the same roots.
 */
export async function readRefValues(
  gitDir: string,
  roots: readonly string[] = ['refs'],
): Promise<Map<string, string>> {
  const stored: Stored = new Map();
  for (const root of roots) await readLoose(gitDir, root, stored);
  await readPacked(gitDir, roots, stored);
  const values = new Map<string, string>();
  for (const ref of stored.keys()) {
    const sha = resolve(stored, ref);
    if (sha) values.set(ref, sha);
  }
  return values;
}

/**
 * Every ref under `refs/` with the object it names (symbolic refs resolved, broken ones left
 * out), sorted by name: the lines of a `packed-refs` file, each `<sha> <ref>\n`.
 */
export async function readRefSnapshot(gitDir: string): Promise<string> {
  const values = await readRefValues(gitDir);
  return [...values.keys()]
    .sort()
    .map((ref) => `${values.get(ref)} ${ref}\n`)
    .join('');
}
