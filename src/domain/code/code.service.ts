import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { streamCommitChanges } from '../../git/commit-download.ts';
import { diffCommits } from '../../git/diff.ts';
import { log } from '../../git/log.ts';
import { checkTreePath, readBlob, readCommit, readTree } from '../../git/read-objects.ts';
import { listRefs, type RefListing } from '../../git/refs.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import { isDomainError, NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository, VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type {
  CodeLocation,
  CommitDetails,
  FileView,
  HistoryPage,
  Readme,
  ReadmeEntry,
  RefSummary,
  ResolvedRef,
  TreeItem,
  TreeItemKind,
} from './code.types.ts';
import { type LfsPointers, lfsFileContent, lfsRawFile, type RawFile } from './lfs-files.ts';
import {
  isMarkdownName,
  looksBinary,
  looksLikeSha,
  pathAfter,
  pickReadme,
  refCandidates,
} from './ref-path.ts';

/** Files above this many bytes are not shown inline (the raw view still serves them). */
export const MAX_INLINE_BYTES = 1024 * 1024;
/** The raw view serves files up to this size. */
export const MAX_RAW_BYTES = 64 * 1024 * 1024;
const MAX_README_BYTES = 512 * 1024;
/** Bounds of the commit page's diff; beyond them the page says it is cut. */
export const COMMIT_DIFF_LIMITS = { maxFiles: 300, maxLines: 5000 } as const;

function itemKind(mode: string): TreeItemKind {
  if (mode === '040000') return 'dir';
  if (mode === '160000') return 'submodule';
  if (mode === '120000') return 'symlink';
  return 'file';
}

function missing(what: string): NotFound {
  return new NotFound(`${what} not found`);
}

/**
 * Reading a repository's code for pages: refs, trees, files, history and commits, for whoever
 * may see the repository. Access is checked once, by `open` (RepoService.get: private is
 * NotFound); every other method takes the VisibleRepo it returned. Malformed refs and paths read
 * as NotFound, since to a browser they are simply pages that do not exist.
 */
export class CodeService {
  readonly #repos: RepoService;
  readonly #pool: CatFilePool;
  readonly #lfs: LfsPointers | undefined;

  /** With `lfs`, files stored with Git LFS are shown and served as their objects. */
  constructor(repos: RepoService, pool: CatFilePool, lfs?: LfsPointers) {
    this.#repos = repos;
    this.#pool = pool;
    this.#lfs = lfs;
  }

  /** The repository and the viewer's access; NotFound when missing or not visible. */
  async open(viewer: User | undefined, owner: string, name: string): Promise<VisibleRepo> {
    return this.#repos.get(viewer, owner, name);
  }

  async defaultBranch(visible: VisibleRepo): Promise<string> {
    return this.#repos.defaultBranch(visible.repo);
  }

  async isEmpty(visible: VisibleRepo): Promise<boolean> {
    return this.#repos.isEmpty(visible.repo);
  }

  /** Every branch and tag, sorted by name, read without starting git. */
  async refs(visible: VisibleRepo): Promise<RefListing> {
    return listRefs(this.#handle(visible), this.#pool);
  }

  /**
   * Splits `{ref}/{path}` of a URL: the longest prefix that is a branch (or else a tag) wins,
   * then a leading commit id; an empty spec means the default branch. All lookups go through the
   * repository's cat-file process, so no git is spawned.
   *
   * @throws NotFound when no prefix names a commit or the path is malformed.
   */
  async locate(visible: VisibleRepo, spec: string): Promise<CodeLocation> {
    const clean = spec.replace(/\/+$/, '');
    const handle = this.#handle(visible);
    if (clean === '') {
      const branch = await this.defaultBranch(visible);
      const sha = await this.#commitOf(handle, `refs/heads/${branch}`);
      if (sha) return { ref: { name: branch, kind: 'branch', sha }, path: '' };
      // HEAD may name a branch that was never pushed while others were: show the first of those.
      const [first] = (await listRefs(handle, this.#pool)).branches;
      if (!first) throw missing('branch');
      return { ref: { name: first.name, kind: 'branch', sha: first.sha }, path: '' };
    }
    const ref = await this.#longestRef(handle, clean);
    const path = pathAfter(clean, ref.name);
    return { ref, path: path === '' ? '' : this.#checkPath(path) };
  }

  /** What `location.path` is in its commit: a directory, file, symlink or submodule. */
  async stat(visible: VisibleRepo, location: CodeLocation): Promise<TreeItem> {
    return this.#browse(async () => {
      const handle = this.#handle(visible);
      if (location.path === '') {
        const commit = await readCommit(this.#pool, handle, location.ref.sha);
        return { name: '', path: '', kind: 'dir', mode: '040000', sha: commit.tree };
      }
      const slash = location.path.lastIndexOf('/');
      const parent = slash === -1 ? '' : location.path.slice(0, slash);
      const name = location.path.slice(slash + 1);
      const tree = await readTree(this.#pool, handle, location.ref.sha, {
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

  /** A directory's entries: directories first, then by name. */
  async tree(visible: VisibleRepo, dir: TreeItem): Promise<TreeItem[]> {
    if (dir.kind !== 'dir') throw missing('directory');
    const tree = await this.#browse(() => readTree(this.#pool, this.#handle(visible), dir.sha));
    const prefix = dir.path === '' ? '' : `${dir.path}/`;
    return tree.entries
      .map((entry) => ({
        name: entry.name,
        path: prefix + entry.name,
        kind: itemKind(entry.mode),
        mode: entry.mode,
        sha: entry.sha,
      }))
      .sort((a, b) => {
        const rank = Number(b.kind === 'dir') - Number(a.kind === 'dir');
        return rank !== 0 ? rank : a.name.localeCompare(b.name, 'en');
      });
  }

  /** A file for display: its text, or a note that it is binary or too large to show. */
  async file(visible: VisibleRepo, item: TreeItem): Promise<FileView> {
    if (item.kind !== 'file' && item.kind !== 'symlink') throw missing('file');
    const blob = await this.#browse(() =>
      readBlob(this.#pool, this.#handle(visible), item.sha, { maxBytes: MAX_INLINE_BYTES }),
    );
    const base = { path: item.path, name: item.name, sha: blob.sha, mode: item.mode };
    const stored =
      item.kind === 'file' && this.#lfs
        ? await lfsFileContent(this.#lfs, visible.repo, blob, MAX_INLINE_BYTES)
        : undefined;
    if (stored) {
      const { oid, size, content } = stored;
      return { ...base, sizeBytes: size, lfs: { oid }, content };
    }
    if (blob.sizeBytes > MAX_INLINE_BYTES || blob.truncated) {
      return { ...base, sizeBytes: blob.sizeBytes, content: { kind: 'too-large' } };
    }
    if (looksBinary(blob.content)) {
      return { ...base, sizeBytes: blob.sizeBytes, content: { kind: 'binary' } };
    }
    return {
      ...base,
      sizeBytes: blob.sizeBytes,
      content: { kind: 'text', text: blob.content.toString('utf8') },
    };
  }

  /**
   * A file's bytes for the raw view, up to MAX_RAW_BYTES; a file stored with Git LFS is its
   * object, streamed (`stream`) when larger than a page would read.
   */
  async raw(visible: VisibleRepo, item: TreeItem): Promise<RawFile> {
    if (item.kind !== 'file' && item.kind !== 'symlink') throw missing('file');
    const blob = await this.#browse(() =>
      readBlob(this.#pool, this.#handle(visible), item.sha, { maxBytes: MAX_RAW_BYTES }),
    );
    const stored =
      item.kind === 'file' && this.#lfs
        ? await lfsRawFile(this.#lfs, visible.repo, blob, MAX_INLINE_BYTES)
        : undefined;
    if (stored) return stored;
    return {
      content: blob.content,
      sizeBytes: blob.sizeBytes,
      truncated: blob.truncated,
      binary: looksBinary(blob.content),
    };
  }

  /** The README among a directory's entries, if it has one: markdown first, then plain text. */
  readmeOf(items: readonly TreeItem[]): ReadmeEntry | undefined {
    const files = items.filter((item) => item.kind === 'file');
    const name = pickReadme(files.map((item) => item.name));
    const item = files.find((file) => file.name === name);
    return item && { item, markdown: isMarkdownName(item.name) };
  }

  /** A README's text (its first MAX_README_BYTES), unless it is binary. */
  async readme(visible: VisibleRepo, entry: ReadmeEntry): Promise<Readme | undefined> {
    const { item } = entry;
    const blob = await this.#browse(() =>
      readBlob(this.#pool, this.#handle(visible), item.sha, { maxBytes: MAX_README_BYTES }),
    );
    if (looksBinary(blob.content)) return undefined;
    return { ...entry, text: blob.content.toString('utf8') };
  }

  /** The newest commit of a location's ref. */
  async tip(visible: VisibleRepo, location: CodeLocation) {
    return this.#browse(() => readCommit(this.#pool, this.#handle(visible), location.ref.sha));
  }

  /**
   * A page of history from the location's commit, newest first, optionally of one path. Asks
   * for one commit more than the page to know whether another page follows, so the whole
   * history is never counted.
   *
   * @throws NotFound when a path is given and no commit ever touched it.
   */
  async history(
    visible: VisibleRepo,
    location: CodeLocation,
    paging: { page: number; perPage: number },
  ): Promise<HistoryPage> {
    const page = Math.max(1, Math.floor(paging.page));
    const perPage = Math.max(1, Math.min(100, Math.floor(paging.perPage)));
    const commits = await this.#browse(() =>
      log(this.#pool, this.#handle(visible), location.ref.sha, {
        skip: (page - 1) * perPage,
        limit: perPage + 1,
        ...(location.path ? { path: location.path } : {}),
      }),
    );
    if (commits.length === 0 && page === 1 && location.path) throw missing('path');
    return { commits: commits.slice(0, perPage), page, perPage, hasMore: commits.length > perPage };
  }

  /**
   * A commit with its diff against its first parent (all of it, for a root commit), within
   * COMMIT_DIFF_LIMITS: the commit is read through cat-file and the diff is one `git diff`.
   * `paths` narrows the diff to those files (a page showing one file that the whole was too
   * large to show).
   */
  async commit(
    visible: VisibleRepo,
    id: string,
    paths?: readonly string[],
  ): Promise<CommitDetails> {
    if (!looksLikeSha(id)) throw missing('commit');
    const handle = this.#handle(visible);
    return this.#browse(async () => {
      const commit = await readCommit(this.#pool, handle, id);
      const diff = await diffCommits(this.#pool, handle, {
        to: commit.sha,
        ...COMMIT_DIFF_LIMITS,
        ...(paths === undefined ? {} : { paths }),
      });
      return { commit, diff };
    });
  }

  /** A commit's changes as git's plain diff or as a mailbox patch, streamed from git. */
  async commitDownload(visible: VisibleRepo, id: string, kind: 'diff' | 'patch') {
    if (!looksLikeSha(id)) throw missing('commit');
    const handle = this.#handle(visible);
    return this.#browse(() => streamCommitChanges(this.#pool, handle, id, kind));
  }

  /** Tip commits of some branches or tags (one cat-file round per ref, pipelined). */
  async tips(
    visible: VisibleRepo,
    refs: ReadonlyArray<{ name: string; sha: string }>,
  ): Promise<RefSummary[]> {
    const handle = this.#handle(visible);
    return Promise.all(
      refs.map(async (ref) => ({
        name: ref.name,
        sha: ref.sha,
        commit: await readCommit(this.#pool, handle, ref.sha).catch(() => undefined),
      })),
    );
  }

  /**
   * Ends the repository's cat-file process after the repository was deleted, so a new one of the
   * same name never reads through a process left open on the old directory.
   */
  async forget(repo: Repository): Promise<void> {
    await this.#pool.evict(this.#repos.handle(repo));
  }

  #handle(visible: VisibleRepo): RepoHandle {
    return this.#repos.handle(visible.repo);
  }

  #checkPath(path: string): string {
    try {
      return checkTreePath(path);
    } catch {
      throw missing('path');
    }
  }

  async #commitOf(handle: RepoHandle, object: string): Promise<string | undefined> {
    const info = await this.#pool.info(handle, `${object}^{commit}`);
    return info?.type === 'commit' ? info.sha : undefined;
  }

  async #longestRef(handle: RepoHandle, spec: string): Promise<ResolvedRef> {
    const candidates = refCandidates(spec);
    // All lookups are queued at once; the cat-file process answers them in one pipelined round.
    const found = await Promise.all(
      candidates.map(async (name) => {
        const [branch, tag] = await Promise.all([
          this.#commitOf(handle, `refs/heads/${name}`),
          this.#commitOf(handle, `refs/tags/${name}`),
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
      const sha = await this.#commitOf(handle, first);
      if (sha) return { name: first, kind: 'commit', sha };
    }
    throw missing('revision');
  }

  /** Runs a git read, turning malformed input (Invalid) into NotFound. */
  async #browse<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (isDomainError(error) && error.code === 'invalid') throw missing('object');
      throw error;
    }
  }
}
