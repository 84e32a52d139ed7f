import type { Readable } from 'node:stream';
import { readBlobHead, streamBlob } from '../../git/blob-download.ts';
import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { streamCommitChanges } from '../../git/commit-download.ts';
import { diffCommits } from '../../git/diff.ts';
import { log } from '../../git/log.ts';
import { readCommit, readTree } from '../../git/read-objects.ts';
import { listRefs, type RefListing } from '../../git/refs.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import { ConcurrencyGate, type GateLimits } from '../../lib/concurrency-gate.ts';
import { Unavailable } from '../errors.ts';
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
  TreeItem,
} from './code.types.ts';
import { locateSpec, statLocation } from './code-location.ts';
import { browse, itemKind, missing } from './code-reads.ts';
import { type BlobSource, fileView, rawFile, readmeAmong, readmeText } from './file-contents.ts';
import type { LfsPointers, RawFile } from './lfs-files.ts';
import { BINARY_SNIFF_BYTES, looksLikeSha } from './ref-path.ts';

/** Bounds of the commit page's diff; beyond them the page says it is cut. */
export const COMMIT_DIFF_LIMITS = { maxFiles: 300, maxLines: 5000 } as const;

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
  /** Raw files streamed from a git of their own, each for as long as its client reads. */
  readonly #largeFiles: ConcurrencyGate;

  /**
   * With `lfs`, files stored with Git LFS are shown and served as their objects. `largeFiles`
   * bounds the raw files past MAX_INLINE_BYTES streamed at once (the raw view is not metered).
   */
  constructor(
    repos: RepoService,
    pool: CatFilePool,
    lfs: LfsPointers | undefined,
    largeFiles: GateLimits,
  ) {
    this.#repos = repos;
    this.#pool = pool;
    this.#lfs = lfs;
    this.#largeFiles = new ConcurrencyGate(largeFiles);
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
   * then a leading commit id; an empty spec means the default branch (code-location.ts).
   *
   * @throws NotFound when no prefix names a commit or the path is malformed.
   */
  async locate(visible: VisibleRepo, spec: string): Promise<CodeLocation> {
    return locateSpec(this.#pool, this.#handle(visible), spec, () => this.defaultBranch(visible));
  }

  /** What `location.path` is in its commit: a directory, file, symlink or submodule. */
  async stat(visible: VisibleRepo, location: CodeLocation): Promise<TreeItem> {
    return statLocation(this.#pool, this.#handle(visible), location);
  }

  /** A directory's entries: directories first, then by name. */
  async tree(visible: VisibleRepo, dir: TreeItem): Promise<TreeItem[]> {
    if (dir.kind !== 'dir') throw missing('directory');
    const tree = await browse(() => readTree(this.#pool, this.#handle(visible), dir.sha));
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
    return fileView(this.#source(visible), item);
  }

  /**
   * A file's bytes for the raw view (file-contents.ts). A large file's stream holds one of the
   * `largeFiles` slots until it closes, sent or dropped.
   *
   * @throws Unavailable when every slot is taken and the wait for one is full or too long.
   */
  async raw(visible: VisibleRepo, item: TreeItem): Promise<RawFile> {
    const handle = this.#handle(visible);
    return rawFile(this.#source(visible), item, (sha) => this.#streamLarge(handle, sha));
  }

  /** A slot of `largeFiles`, for a git reading a large blob; its release is the caller's. */
  async #largeFileSlot(): Promise<() => void> {
    const release = await this.#largeFiles.enter();
    if (!release) {
      throw new Unavailable(
        'Too many large files are being read right now; please try again shortly.',
        {
          details: { retryAfterSeconds: this.#largeFiles.retryAfterSeconds },
        },
      );
    }
    return release;
  }

  async #streamLarge(handle: RepoHandle, sha: string): Promise<{ head: Buffer; stream: Readable }> {
    const release = await this.#largeFileSlot();
    try {
      const blob = await streamBlob(handle, sha, BINARY_SNIFF_BYTES);
      blob.stream.once('close', release);
      return blob;
    } catch (error) {
      release();
      throw error;
    }
  }

  async #headOfLarge(handle: RepoHandle, sha: string, bytes: number): Promise<Buffer> {
    const release = await this.#largeFileSlot();
    try {
      return await readBlobHead(handle, sha, bytes);
    } finally {
      release();
    }
  }

  /** The README among a directory's entries, if it has one: markdown first, then plain text. */
  readmeOf(items: readonly TreeItem[]): ReadmeEntry | undefined {
    return readmeAmong(items);
  }

  /**
   * A README's text (its first part), unless it is binary. The first part of a large one is
   * read by a git of its own, in a `largeFiles` slot.
   *
   * @throws Unavailable when the README is large and no slot frees in time.
   */
  async readme(visible: VisibleRepo, entry: ReadmeEntry): Promise<Readme | undefined> {
    const handle = this.#handle(visible);
    return readmeText(this.#source(visible), entry, (sha, bytes) =>
      this.#headOfLarge(handle, sha, bytes),
    );
  }

  /** The newest commit of a location's ref. */
  async tip(visible: VisibleRepo, location: CodeLocation) {
    return browse(() => readCommit(this.#pool, this.#handle(visible), location.ref.sha));
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
    const commits = await browse(() =>
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
    return browse(async () => {
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
    return browse(() => streamCommitChanges(this.#pool, handle, id, kind));
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

  #source(visible: VisibleRepo): BlobSource {
    return { pool: this.#pool, handle: this.#handle(visible), repo: visible.repo, lfs: this.#lfs };
  }
}
