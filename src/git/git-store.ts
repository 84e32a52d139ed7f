import type { Readable } from 'node:stream';
import { type Archive, type ArchiveFormat, createArchive } from './archive.ts';
import { CatFilePool } from './cat-file-pool.ts';
import { type Diff, type DiffOptions, diffCommits, mergeBase } from './diff.ts';
import { ensureHooks } from './hooks.ts';
import { countCommits, type LogOptions, log } from './log.ts';
import { fetchIntoRepo } from './merge.ts';
import {
  type Blob,
  type Commit,
  readBlob,
  readCommit,
  readTag,
  readTree,
  type Tag,
  type Tree,
} from './read-objects.ts';
import {
  createTag,
  deleteRef,
  findBranch,
  isAncestor,
  listRefs,
  type RefListing,
  type RefSnapshot,
  readDefaultBranch,
  refExists,
  resolveCommit,
  setDefaultBranch,
  snapshotRefs,
  updateRef,
} from './refs.ts';
import { repositoryExists } from './repo-exists.ts';
import { type RepoHandle, RepoPaths, type RepoRef } from './repo-paths.ts';
import {
  createFork,
  deleteRepository,
  detachFromAlternates,
  type InitOptions,
  initBare,
  sweepTempDirs,
} from './repository.ts';
import {
  advertiseRefs,
  type GitService,
  type ReceivePack,
  type ReceivePackOptions,
  receivePack,
  type TransportOptions,
  uploadPack,
} from './transport.ts';

export interface GitConfig {
  /** Directory holding `<owner>/<name>.git`. */
  readonly root: string;
  /** Close a repository's cat-file process after this long unused. Default 60 s. */
  readonly catFileIdleMs?: number;
  /** At most this many cat-file processes at once. Default 32. */
  readonly catFileMax?: number;
  /** Restart a cat-file process that takes longer than this to answer. Default 30 s. */
  readonly catFileRequestTimeoutMs?: number;
}

/**
 * The git layer as the rest of Kiln sees it: every operation takes a repository reference
 * (`{ owner, name }`), never a path, and the layer owns the cat-file processes. Built once by the
 * composition root, which should call `sweepTempDirs()` at start-up and `close()` at shutdown.
 *
 * @example
 *   const git = createGit({ root: path.join(config.dataDir, 'repos') });
 *   await git.sweepTempDirs();
 *   await git.initBare({ owner: 'alice', name: 'tools' }, { defaultBranch: 'main' });
 */
export class GitStore {
  readonly paths: RepoPaths;
  readonly pool: CatFilePool;

  constructor(config: GitConfig) {
    this.paths = new RepoPaths(config.root);
    this.pool = new CatFilePool({
      idleMs: config.catFileIdleMs,
      maxProcesses: config.catFileMax,
      requestTimeoutMs: config.catFileRequestTimeoutMs,
    });
  }

  /**
   * Validates a reference and locates it; throws Invalid for a hostile owner or name. The
   * methods below are async so that this surfaces as a rejection, like every other failure.
   */
  handle(ref: RepoRef): RepoHandle {
    return this.paths.resolve(ref);
  }

  // Repositories

  async initBare(ref: RepoRef, options: InitOptions): Promise<void> {
    return initBare(this.paths, this.handle(ref), options);
  }

  async deleteRepository(ref: RepoRef): Promise<void> {
    const repo = this.handle(ref);
    await this.pool.evict(repo);
    await deleteRepository(this.paths, repo);
  }

  async createFork(parent: RepoRef, fork: RepoRef): Promise<void> {
    return createFork(this.paths, this.handle(parent), this.handle(fork));
  }

  async detachFromAlternates(ref: RepoRef): Promise<boolean> {
    return detachFromAlternates(this.handle(ref));
  }

  async repositoryExists(ref: RepoRef): Promise<boolean> {
    return repositoryExists(this.handle(ref));
  }

  async ensureHooks(ref: RepoRef): Promise<boolean> {
    return ensureHooks(this.handle(ref));
  }

  async sweepTempDirs(olderThanMs?: number): Promise<number> {
    return sweepTempDirs(this.paths, olderThanMs);
  }

  // Refs

  async listRefs(ref: RepoRef): Promise<RefListing> {
    return listRefs(this.handle(ref));
  }

  async findBranch(ref: RepoRef, branch: string): Promise<string | undefined> {
    return findBranch(this.handle(ref), branch);
  }

  async refExists(ref: RepoRef, fullRef: string): Promise<boolean> {
    return refExists(this.handle(ref), fullRef);
  }

  async resolveCommit(ref: RepoRef, revision: string): Promise<string> {
    return resolveCommit(this.pool, this.handle(ref), revision);
  }

  async readDefaultBranch(ref: RepoRef): Promise<string | undefined> {
    return readDefaultBranch(this.handle(ref));
  }

  async setDefaultBranch(ref: RepoRef, branch: string): Promise<void> {
    return setDefaultBranch(this.handle(ref), branch);
  }

  updateRef(
    ref: RepoRef,
    fullRef: string,
    newSha: string,
    expectedOldSha: string | null,
  ): Promise<void> {
    return updateRef(this.handle(ref), fullRef, newSha, expectedOldSha);
  }

  async deleteRef(ref: RepoRef, fullRef: string, expectedOldSha: string): Promise<void> {
    return deleteRef(this.handle(ref), fullRef, expectedOldSha);
  }

  async createTag(ref: RepoRef, tag: string, target: string): Promise<string> {
    return createTag(this.pool, this.handle(ref), tag, target);
  }

  async isAncestor(ref: RepoRef, ancestor: string, descendant: string): Promise<boolean> {
    return isAncestor(this.handle(ref), ancestor, descendant);
  }

  async snapshotRefs(ref: RepoRef, prefixes?: readonly string[]): Promise<RefSnapshot> {
    return snapshotRefs(this.handle(ref), prefixes);
  }

  // Objects and history

  async readCommit(ref: RepoRef, revision: string): Promise<Commit> {
    return readCommit(this.pool, this.handle(ref), revision);
  }

  async readTree(ref: RepoRef, revision: string, options?: { path?: string }): Promise<Tree> {
    return readTree(this.pool, this.handle(ref), revision, options);
  }

  readBlob(
    ref: RepoRef,
    revision: string,
    options?: { path?: string; maxBytes?: number },
  ): Promise<Blob> {
    return readBlob(this.pool, this.handle(ref), revision, options);
  }

  async readTag(ref: RepoRef, sha: string): Promise<Tag> {
    return readTag(this.pool, this.handle(ref), sha);
  }

  async log(ref: RepoRef, revision: string, options?: LogOptions): Promise<Commit[]> {
    return log(this.pool, this.handle(ref), revision, options);
  }

  async countCommits(ref: RepoRef, revision: string, options?: { path?: string }): Promise<number> {
    return countCommits(this.handle(ref), revision, options);
  }

  async diff(ref: RepoRef, options: DiffOptions): Promise<Diff> {
    return diffCommits(this.pool, this.handle(ref), options);
  }

  async mergeBase(ref: RepoRef, a: string, b: string): Promise<string | undefined> {
    return mergeBase(this.handle(ref), a, b);
  }

  // Writing history

  async fetchIntoRepo(
    target: RepoRef,
    source: RepoRef,
    sha: string,
    localRef: string,
  ): Promise<void> {
    return fetchIntoRepo(this.handle(target), this.handle(source), sha, localRef);
  }

  // Streams

  archive(
    ref: RepoRef,
    options: { revision: string; format: ArchiveFormat; signal?: AbortSignal },
  ): Promise<Archive> {
    return createArchive(this.pool, this.handle(ref), options);
  }

  async advertiseRefs(
    ref: RepoRef,
    service: GitService,
    options?: TransportOptions,
  ): Promise<Buffer> {
    return advertiseRefs(this.handle(ref), service, options);
  }

  async uploadPack(ref: RepoRef, input: Readable, options?: TransportOptions): Promise<Readable> {
    return uploadPack(this.handle(ref), input, options);
  }

  async receivePack(
    ref: RepoRef,
    input: Readable,
    options?: ReceivePackOptions,
  ): Promise<ReceivePack> {
    return receivePack(this.handle(ref), input, options);
  }

  /** Ends every cat-file process; the store must not be used afterwards. */
  close(): Promise<void> {
    return this.pool.closeAll();
  }
}

/** Builds the git layer from configuration. */
export function createGit(config: GitConfig): GitStore {
  return new GitStore(config);
}
