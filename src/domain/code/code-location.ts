import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { checkTreePath, readCommit, readTree } from '../../git/read-objects.ts';
import { listRefs } from '../../git/refs.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import type { CodeLocation, ResolvedRef, TreeItem } from './code.types.ts';
import { browse, itemKind, missing } from './code-reads.ts';
import { looksLikeSha, pathAfter, refCandidates } from './ref-path.ts';

/**
 * Where a code URL points: `{ref}/{path}` split into a ref and a path, and what the path is in
 * that ref's commit. Every lookup goes through the repository's cat-file process, so resolving a
 * URL never starts git.
 */

/** The commit `object` names, if it names one. */
async function commitOf(
  pool: CatFilePool,
  handle: RepoHandle,
  object: string,
): Promise<string | undefined> {
  const info = await pool.info(handle, `${object}^{commit}`);
  return info?.type === 'commit' ? info.sha : undefined;
}

/** The longest prefix of `spec` that is a branch (or else a tag), then a leading commit id. */
async function longestRef(
  pool: CatFilePool,
  handle: RepoHandle,
  spec: string,
): Promise<ResolvedRef> {
  // All lookups are queued at once; the cat-file process answers them in one pipelined round.
  const found = await Promise.all(
    refCandidates(spec).map(async (name) => {
      const [branch, tag] = await Promise.all([
        commitOf(pool, handle, `refs/heads/${name}`),
        commitOf(pool, handle, `refs/tags/${name}`),
      ]);
      if (branch) return { name, kind: 'branch' as const, sha: branch };
      if (tag) return { name, kind: 'tag' as const, sha: tag };
      return undefined;
    }),
  );
  const ref = found.find((candidate) => candidate !== undefined);
  if (ref) return ref;
  const first = spec.split('/')[0] ?? '';
  if (looksLikeSha(first)) {
    const sha = await commitOf(pool, handle, first);
    if (sha) return { name: first, kind: 'commit', sha };
  }
  throw missing('revision');
}

function checkPath(path: string): string {
  try {
    return checkTreePath(path);
  } catch {
    throw missing('path');
  }
}

/**
 * Splits `spec`; an empty spec means `defaultBranch`, or the first branch there is when that was
 * never pushed.
 *
 * @throws NotFound when no prefix names a commit or the path is malformed.
 */
export async function locateSpec(
  pool: CatFilePool,
  handle: RepoHandle,
  spec: string,
  defaultBranch: () => Promise<string>,
): Promise<CodeLocation> {
  const clean = spec.replace(/\/+$/, '');
  if (clean === '') {
    const branch = await defaultBranch();
    const sha = await commitOf(pool, handle, `refs/heads/${branch}`);
    if (sha) return { ref: { name: branch, kind: 'branch', sha }, path: '' };
    // HEAD may name a branch that was never pushed while others were: show the first of those.
    const [first] = (await listRefs(handle, pool)).branches;
    if (!first) throw missing('branch');
    return { ref: { name: first.name, kind: 'branch', sha: first.sha }, path: '' };
  }
  const ref = await longestRef(pool, handle, clean);
  const path = pathAfter(clean, ref.name);
  return { ref, path: path === '' ? '' : checkPath(path) };
}

/** What `location.path` is in its commit: a directory, file, symlink or submodule. */
export function statLocation(
  pool: CatFilePool,
  handle: RepoHandle,
  location: CodeLocation,
): Promise<TreeItem> {
  return browse(async () => {
    if (location.path === '') {
      const commit = await readCommit(pool, handle, location.ref.sha);
      return { name: '', path: '', kind: 'dir', mode: '040000', sha: commit.tree };
    }
    const slash = location.path.lastIndexOf('/');
    const parent = slash === -1 ? '' : location.path.slice(0, slash);
    const name = location.path.slice(slash + 1);
    const tree = await readTree(pool, handle, location.ref.sha, {
      ...(parent ? { path: parent } : {}),
    });
    const entry = tree.entries.find((item) => item.name === name);
    if (!entry) throw missing('path');
    return {
      name,
      path: location.path,
      kind: itemKind(entry.mode),
      mode: entry.mode,
      sha: entry.sha,
    };
  });
}
