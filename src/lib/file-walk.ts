import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from './thrown.ts';

/** A directory or regular file met on a walk; symbolic links and other kinds are never met. */
export type WalkedFile = {
  /** Path under the walk's root, with `/` separators. */
  readonly relative: string;
  readonly absolute: string;
  readonly isDirectory: boolean;
  readonly size: number;
  readonly mode: number;
  readonly mtimeMs: number;
};

/**
 * Every directory and regular file under `root` that `include` admits, in name order, each
 * directory before what it holds. Symbolic links are not followed (a link in a data directory
 * must not carry a file from elsewhere), and what vanishes between the listing and its `lstat`
 * (a temporary file renamed, a loose object packed away) is passed over, as is a missing root.
 */
export async function* walkFiles(
  root: string,
  include: (relative: string, isDirectory: boolean) => boolean,
): AsyncGenerator<WalkedFile> {
  async function* walk(relative: string): AsyncGenerator<WalkedFile> {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true }).catch(
      (error: unknown) => {
        if (errorCode(error) === 'ENOENT') return [];
        throw error;
      },
    );
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (!include(child, entry.isDirectory())) continue;
      const absolute = path.join(root, child);
      const stats = await lstat(absolute).catch(() => undefined);
      if (!stats || !(stats.isDirectory() || stats.isFile())) continue;
      const isDirectory = stats.isDirectory();
      yield {
        relative: child,
        absolute,
        isDirectory,
        size: stats.size,
        mode: stats.mode,
        mtimeMs: stats.mtimeMs,
      };
      if (isDirectory) yield* walk(child);
    }
  }
  yield* walk('');
}
