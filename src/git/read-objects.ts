import { Invalid, NotFound } from '../domain/errors.ts';
import type { CatFilePool } from './cat-file-pool.ts';
import { type Commit, parseCommit } from './objects/commit.ts';
import { parseTag, type TagObject } from './objects/tag.ts';
import { parseTree, type TreeEntry } from './objects/tree.ts';
import { checkRevision, checkSha } from './ref-names.ts';
import type { RepoHandle } from './repo-paths.ts';

/** Object reads through the repository's cat-file process: no git is spawned per read. */

// Defined with the parser, so that code which only shows a commit need not import the reader.
export type { Commit } from './objects/commit.ts';

export interface Tree {
  readonly sha: string;
  readonly entries: readonly TreeEntry[];
}

export interface Blob {
  readonly sha: string;
  readonly sizeBytes: number;
  /** The blob's bytes; none when it is larger than the read allowed (`truncated`). */
  readonly content: Buffer;
  /** Whether the blob was larger than the read allowed, and so not read. */
  readonly truncated: boolean;
}

export interface Tag extends TagObject {
  readonly sha: string;
}

export const DEFAULT_MAX_BLOB_BYTES = 1024 * 1024;

/**
 * Checks a path inside a tree (`src/main.ts`): relative, no empty, `.` or `..` segments, no line
 * breaks or NUL. Returns it without a trailing slash.
 */
export function checkTreePath(treePath: string): string {
  const trimmed = treePath.endsWith('/') ? treePath.slice(0, -1) : treePath;
  const segments = trimmed.split('/');
  if (/[\0\r\n]/.test(trimmed) || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new Invalid('invalid path', { details: { path: treePath } });
  }
  return trimmed;
}

/** The object expression for a revision, or for a path inside it. */
function objectName(revision: string, treePath: string | undefined): string {
  const rev = checkRevision(revision);
  return treePath === undefined || treePath === '' ? rev : `${rev}:${checkTreePath(treePath)}`;
}

/**
 * The commit a revision names (tags are peeled).
 *
 * @throws NotFound when there is none.
 */
export async function readCommit(
  pool: CatFilePool,
  repo: RepoHandle,
  revision: string,
): Promise<Commit> {
  const data = await pool.contents(repo, `${checkRevision(revision)}^{commit}`);
  if (!data) throw new NotFound('commit not found', { details: { revision } });
  return { sha: data.sha, ...parseCommit(data.content) };
}

/**
 * The entries of the tree at `path` in a revision (the root tree without a path).
 *
 * @throws NotFound when the revision or path does not exist or is not a directory.
 */
export async function readTree(
  pool: CatFilePool,
  repo: RepoHandle,
  revision: string,
  options: { path?: string } = {},
): Promise<Tree> {
  const name = options.path
    ? objectName(revision, options.path)
    : `${checkRevision(revision)}^{tree}`;
  const data = await pool.contents(repo, name);
  if (data?.type !== 'tree')
    throw new NotFound('tree not found', { details: { revision, path: options.path } });
  return { sha: data.sha, entries: parseTree(data.content, data.sha.length / 2) };
}

/**
 * A file's bytes, by blob id or by revision and path, when it has at most `maxBytes` (default
 * 1 MiB). A larger blob is not read: cat-file would pass every byte of it through the
 * repository's shared process, holding every other read of the repository behind it (and a
 * blob of gigabytes past its timeout), whatever part of it was kept. It comes back with its size,
 * no bytes and `truncated`; blob-download.ts streams a large blob, or reads its head, from a git
 * of its own.
 *
 * @throws NotFound when there is no such file.
 */
export async function readBlob(
  pool: CatFilePool,
  repo: RepoHandle,
  revision: string,
  options: { path?: string; maxBytes?: number } = {},
): Promise<Blob> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BLOB_BYTES;
  const info = await pool.info(repo, objectName(revision, options.path));
  if (info?.type !== 'blob')
    throw new NotFound('file not found', { details: { revision, path: options.path } });
  if (info.sizeBytes > maxBytes) {
    return { sha: info.sha, sizeBytes: info.sizeBytes, content: Buffer.alloc(0), truncated: true };
  }
  // By the id just found: the same blob even if the revision moved meanwhile.
  const data = await pool.contents(repo, info.sha, maxBytes);
  if (data?.type !== 'blob')
    throw new NotFound('file not found', { details: { revision, path: options.path } });
  return { sha: data.sha, sizeBytes: data.sizeBytes, content: data.content, truncated: false };
}

/**
 * An annotated tag object by its id (a `TagInfo.sha` from `listRefs`).
 *
 * @throws NotFound when the id names no tag object.
 */
export async function readTag(pool: CatFilePool, repo: RepoHandle, sha: string): Promise<Tag> {
  const data = await pool.contents(repo, checkSha(sha));
  if (data?.type !== 'tag') throw new NotFound('tag not found', { details: { sha } });
  return { sha: data.sha, ...parseTag(data.content) };
}
