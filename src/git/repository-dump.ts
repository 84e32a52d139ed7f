import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { type WalkedFile, walkFiles } from '../lib/file-walk.ts';
import { runGit } from './command.ts';
import { hasRefFiles, readRefSnapshot } from './ref-snapshot.ts';
import { checkRepoSegment } from './repo-paths.ts';
import { restorableKind } from './restorable-files.ts';

/**
 * Repositories as files for a dump, taken so that a push running meanwhile leaves either the old
 * or the new value of each ref in the dump, never a ref without its objects. Git writes a push's
 * objects before it moves any ref, and never changes an object file once written, so: the refs
 * of every repository are read first (from their ref files), and the object files are copied
 * after. Whatever the copied refs name was on disk before the copy began.
 */

/** A file of a repository as the dump stores it (its path inside the repository directory). */
export type RepositoryFile = WalkedFile;

const MARKER = 'kiln-creating';

/**
 * Copied: what a restore takes (restorable-files.ts), the object files and HEAD; the refs travel
 * as the snapshot's `packed-refs`. So not the refs themselves, reflogs (they may name objects
 * written after the copy), lock files, git's scratch space of pushes still under way, nor config,
 * hooks and the rest, which a restore writes from Kiln's own templates. The one file more is a
 * fork's alternates (repository-restore.ts).
 */
function copied(relative: string, directory: boolean): boolean {
  if (directory) return relative === 'objects' || relative.startsWith('objects/');
  // A fork's loan: a restore writes it again only between repositories of the same dump.
  if (relative === 'objects/info/alternates') return true;
  const kind = restorableKind(relative);
  return kind === 'object' || kind === 'head';
}

/**
 * The repositories under `root`, as `owner/name.git`, skipping Kiln's scratch directory and
 * repositories still being created.
 */
export async function listRepositoryDirs(root: string): Promise<string[]> {
  const found: string[] = [];
  const owners = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const owner of owners) {
    if (!owner.isDirectory() || !validSegment(owner.name)) continue;
    const repos = await readdir(path.join(root, owner.name), { withFileTypes: true });
    for (const repo of repos) {
      if (!repo.isDirectory() || !repo.name.endsWith('.git')) continue;
      if (!validSegment(repo.name.slice(0, -'.git'.length))) continue;
      const relative = `${owner.name}/${repo.name}`;
      const marker = await lstat(path.join(root, relative, MARKER)).catch(() => undefined);
      if (!marker) found.push(relative);
    }
  }
  return found.sort();
}

function validSegment(value: string): boolean {
  try {
    return checkRepoSegment(value, 'name') === value;
  } catch {
    return false;
  }
}

/**
 * Reads every ref of a repository (loose and packed alike) as one `packed-refs` file: from the
 * ref files where git keeps them there (ref-snapshot.ts), through `git for-each-ref` otherwise.
 */
export async function snapshotRepositoryRefs(gitDir: string): Promise<string> {
  if (hasRefFiles(gitDir)) return readRefSnapshot(gitDir);
  const { stdout } = await runGit(['for-each-ref', '--format=%(objectname) %(refname)'], {
    gitDir,
    maxStdoutBytes: 256 * 1024 * 1024,
  });
  const lines = stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .sort((a, b) => (a.slice(a.indexOf(' ')) < b.slice(b.indexOf(' ')) ? -1 : 1));
  return lines.map((line) => `${line}\n`).join('');
}

/** The files of a repository that a dump copies, directories first; see `copied`. */
export function repositoryFiles(gitDir: string): AsyncGenerator<RepositoryFile> {
  return walkFiles(gitDir, copied);
}

/** Whether git finds every object that every ref needs (`fsck --connectivity-only`). */
export async function checkConnectivity(gitDir: string): Promise<string | undefined> {
  try {
    await runGit(['fsck', '--connectivity-only', '--no-dangling', '--no-progress'], {
      gitDir,
      timeoutMs: 60 * 60 * 1000,
    });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
