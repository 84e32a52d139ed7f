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
  /** The first `maxBytes` bytes of the blob. */
  readonly content: Buffer;
  /** Whether `content` is shorter than the blob. */
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
 * A file's bytes, by blob id or by revision and path, capped at `maxBytes` (default 1 MiB). The
 * size is always the blob's full size; `truncated` says whether bytes were left out.
 *
 * @throws NotFound when there is no such file.
 */
export async function readBlob(
  pool: CatFilePool,
  repo: RepoHandle,
  revision: string,
  options: { path?: string; maxBytes?: number } = {},
): Promise<Blob> {
  const data = await pool.contents(
    repo,
    objectName(revision, options.path),
    options.maxBytes ?? DEFAULT_MAX_BLOB_BYTES,
  );
  if (data?.type !== 'blob')
    throw new NotFound('file not found', { details: { revision, path: options.path } });
  return {
    sha: data.sha,
    sizeBytes: data.sizeBytes,
    content: data.content,
    truncated: data.truncated,
  };
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
