import type { CatFilePool } from './cat-file-pool.ts';
import { readRefValues } from './ref-snapshot.ts';
import type { BranchInfo, RefListing, TagInfo } from './refs.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Branches and tags as `listRefs` gives them, without starting git: the refs come from the ref
 * files (ref-snapshot.ts) and what a tag names from the repository's long-lived cat-file
 * process. Pages list a repository's refs on every view, and starting `git for-each-ref` for it
 * held the event loop for 5–35 ms a page on a busy machine (fork and exec are synchronous in
 * Node, and cost more the larger the process), which was most of the event-loop delay of
 * ordinary pages under load.
 */

/** Byte order, as git sorts ref names. */
function byName(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** `object <sha>` and `type <type>`, the first two lines of a tag object. */
function tagTarget(content: Buffer): { sha: string; type: string } | undefined {
  const [object, type] = content.subarray(0, 256).toString('latin1').split('\n');
  if (!object?.startsWith('object ') || !type?.startsWith('type ')) return undefined;
  return { sha: object.slice('object '.length), type: type.slice('type '.length) };
}

/**
 * Largest tag object read through cat-file. Its message can be any size, and every byte of an
 * object asked for passes the repository's shared process, however few are kept; past this,
 * the listing is left to `for-each-ref` in a process of its own.
 */
const MAX_TAG_OBJECT_BYTES = 64 * 1024;
const TOO_LARGE = Symbol('a tag object too large to read here');

async function tagInfo(
  pool: CatFilePool,
  repo: RepoHandle,
  ref: string,
  sha: string,
): Promise<TagInfo | undefined | typeof TOO_LARGE> {
  const name = ref.slice('refs/tags/'.length);
  const info = await pool.info(repo, sha);
  // Names an object the repository lacks: git leaves such a broken ref out too.
  if (!info) return undefined;
  if (info.type !== 'tag') {
    const commitSha = info.type === 'commit' ? sha : undefined;
    return { name, ref, sha, commitSha, annotated: false };
  }
  if (info.sizeBytes > MAX_TAG_OBJECT_BYTES) return TOO_LARGE;
  // One level, as for-each-ref's `%(*objectname)`: a tag of a tag names no commit.
  const tag = await pool.contents(repo, sha, 256);
  const target = tag && tagTarget(tag.content);
  const commitSha = target?.type === 'commit' ? target.sha : undefined;
  return { name, ref, sha, commitSha, annotated: true };
}

/**
 * Most tags whose objects are looked up one by one through cat-file. Each lookup costs the
 * event loop a round trip (tens of microseconds); past this many, one `for-each-ref` costs less.
 */
const MAX_TAG_LOOKUPS = 100;

/**
 * Branches and tags, each sorted by name; an empty repository has neither. Undefined when the
 * repository has more tags than are worth looking up one by one (MAX_TAG_LOOKUPS), or a tag
 * object too large to read through cat-file (MAX_TAG_OBJECT_BYTES).
 */
export async function listRefsFromFiles(
  pool: CatFilePool,
  repo: RepoHandle,
): Promise<RefListing | undefined> {
  const values = await readRefValues(repo.path, ['refs/heads', 'refs/tags']);
  const refs = [...values.keys()].sort(byName);
  if (refs.filter((ref) => ref.startsWith('refs/tags/')).length > MAX_TAG_LOOKUPS) return undefined;
  const branches: BranchInfo[] = refs
    .filter((ref) => ref.startsWith('refs/heads/'))
    .map((ref) => ({ name: ref.slice('refs/heads/'.length), ref, sha: values.get(ref)! }));
  const tags = await Promise.all(
    refs
      .filter((ref) => ref.startsWith('refs/tags/'))
      .map((ref) => tagInfo(pool, repo, ref, values.get(ref)!)),
  );
  if (tags.includes(TOO_LARGE)) return undefined;
  return { branches, tags: tags.filter((tag) => tag !== undefined && tag !== TOO_LARGE) };
}
