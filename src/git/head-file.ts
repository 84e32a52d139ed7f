import { type Stats, statSync } from 'node:fs';
import path from 'node:path';
import type { BoundedMap } from '../lib/bounded-map.ts';
import { readSmallFile } from './small-file.ts';

/** What HEAD said, and which file said it. */
export type RememberedHead = {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly text: string;
};

const sameFile = (known: RememberedHead, info: Stats) =>
  known.ino === info.ino &&
  known.size === info.size &&
  known.mtimeMs === info.mtimeMs &&
  known.ctimeMs === info.ctimeMs;

/**
 * The text of a repository's HEAD file, read live: every call asks the file system, but with
 * one `stat` instead of open, read and close when the file is the one read last time. Git
 * never rewrites HEAD in place: it writes `HEAD.lock` and renames it over HEAD, so a change
 * gives HEAD a new inode, and its times and size are checked as well. Repository objects read
 * HEAD for every repository they show, so on a page of them these system calls add up.
 *
 * Synchronous on purpose: the four thread-pool round trips of an asynchronous read of a few
 * dozen bytes cost more than the read itself. Without `remembered` (a one-off check), the file
 * is read every time.
 *
 * @throws the file system's error (ENOENT when the repository has no HEAD).
 */
export function readHeadFile(
  repoPath: string,
  remembered?: BoundedMap<string, RememberedHead>,
): string {
  const file = path.join(repoPath, 'HEAD');
  const info = statSync(file);
  const known = remembered?.peek(file);
  if (remembered?.stats.count(known !== undefined && sameFile(known, info)) && known)
    return known.text;
  // Read after the stat: if HEAD changes in between, the text is newer than the identity kept
  // with it, which the next call sees as a different file and reads again.
  const text = readSmallFile(file);
  remembered?.set(file, {
    ino: info.ino,
    size: info.size,
    mtimeMs: info.mtimeMs,
    ctimeMs: info.ctimeMs,
    text,
  });
  return text;
}
