import { statSync } from 'node:fs';
import { copyFile, link, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../lib/thrown.ts';

/**
 * A repository's object store as files: the alternates that let it borrow another store's
 * objects, and hard-linked copies of another store's objects. Git never rewrites an object file
 * or a pack in place (it writes new ones and deletes old ones), so a hard link is a copy that
 * costs nothing until one side deletes its name.
 */

/** Loose object directories (`objects/3f/`) and the objects in them (SHA-1 or SHA-256 ids). */
const LOOSE_DIR = /^[0-9a-f]{2}$/;
const LOOSE_OBJECT = /^[0-9a-f]{38}(?:[0-9a-f]{24})?$/;

/** Files that belong to a finished pack; `.keep` markers and `tmp_` files under way are not. */
const PACK_FILE = /^pack-[0-9a-f]+\.(?:pack|idx|rev|bitmap|mtimes|promisor)$/;

/** The object directory of a repository directory. */
export function objectsDir(repoDir: string): string {
  return path.join(repoDir, 'objects');
}

function alternatesFile(objects: string): string {
  return path.join(objects, 'info', 'alternates');
}

/**
 * Whether `objects` has an alternates file at all. Most repositories borrow nothing: a stat that
 * answers "none" without throwing costs a few microseconds, where a read that fails costs an
 * error and its stack (a third of a second of CPU over 10,000 repositories at start-up).
 */
export function hasAlternates(objects: string): boolean {
  return statSync(alternatesFile(objects), { throwIfNoEntry: false }) !== undefined;
}

/**
 * What `objects`'s alternates file is now (inode, size and times), or undefined when it borrows
 * nothing: anything remembered about what a repository can read holds only while this does.
 * Kiln rewrites or removes the file whenever it cuts a loan, so the state changes with it.
 */
export function alternatesState(objects: string): string | undefined {
  const stat = statSync(alternatesFile(objects), { bigint: true, throwIfNoEntry: false });
  return stat && `${stat.ino}.${stat.size}.${stat.mtimeNs}.${stat.ctimeNs}`;
}

/**
 * The stores `objects` borrows from, as absolute paths (git reads relative entries against the
 * object directory itself). Empty when it borrows nothing.
 */
export async function readAlternates(objects: string): Promise<string[]> {
  if (!hasAlternates(objects)) return [];
  const file = alternatesFile(objects);
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return '';
    throw error;
  });
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'))
    .map((line) => path.resolve(objects, line));
}

/**
 * Makes `objects` borrow from `stores`. Entries are written relative to `at`, the object
 * directory's final place (so the repositories root can move); while a repository is being
 * assembled elsewhere, pass its current place and the paths stay right until it is moved.
 */
export async function writeAlternates(
  objects: string,
  stores: readonly string[],
  at = objects,
): Promise<void> {
  await mkdir(path.join(objects, 'info'), { recursive: true, mode: 0o700 });
  const lines = stores.map((store) => `${path.relative(at, store)}\n`).join('');
  await writeFile(alternatesFile(objects), lines);
}

/**
 * Gives `to` every object file `from` holds right now, hard-linked where the file system allows
 * and copied where it does not. Loose objects go first and packs last: `git gc` writes a new
 * pack before it deletes the loose objects and old packs it replaces, so whatever a collection
 * moves meanwhile is found in one place or the other, or its removal shows as ENOENT, which the
 * caller answers by starting over.
 */
export async function linkObjectFiles(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { withFileTypes: true });
  const loose = entries.filter((entry) => entry.isDirectory() && LOOSE_DIR.test(entry.name));
  for (const dir of [...loose.map((entry) => entry.name), 'pack']) {
    const files = await readdir(path.join(from, dir)).catch((error: unknown): string[] => {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    });
    // Not `tmp_obj_…` or `tmp_pack_…` files of a write still under way.
    const wanted = files.filter((file) => (dir === 'pack' ? PACK_FILE : LOOSE_OBJECT).test(file));
    if (wanted.length === 0) continue;
    await mkdir(path.join(to, dir), { recursive: true, mode: 0o700 });
    for (const file of wanted) {
      await linkOrCopy(path.join(from, dir, file), path.join(to, dir, file));
    }
  }
}

async function linkOrCopy(source: string, target: string): Promise<void> {
  try {
    await link(source, target);
  } catch (error) {
    const code = errorCode(error);
    // Another file system, or one without hard links: a plain copy is just as good.
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw error;
    await copyFile(source, target);
  }
}
