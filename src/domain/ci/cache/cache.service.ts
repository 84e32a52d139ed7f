import type { Readable } from 'node:stream';
import { Conflict, Invalid, NotFound, TooLarge, Unauthenticated } from '../../errors.ts';
import type { Page } from '../../paging.ts';
import type { RepoService } from '../../repos/repo.service.ts';
import type { User } from '../../users/user.types.ts';
import type { CacheStore } from './cache.store.ts';
import type { CacheEntry, CacheFilter } from './cache.types.ts';
import type { ByteRange, CacheBlobs } from './cache-blobs.ts';
import { type CacheLink, linkIsValid, newLinkSecret, signLink } from './cache-links.ts';
import { type CacheScopes, cacheScopesOf } from './cache-scopes.ts';

/** Reservations not written to for this long are abandoned: housekeeping deletes them. */
export const ABANDONED_UPLOAD_MS = 60 * 60_000;
/** Entries not read for this long are deleted, as GitHub does after a week. */
export const IDLE_ENTRY_MS = 7 * 86_400_000;
/** Largest part of one upload request (the client sends 32 MiB parts). */
export const MAX_PART_BYTES = 128 * 1024 * 1024;

const MAX_KEYS = 10;
const MAX_KEY_LENGTH = 512;
const VERSION = /^[A-Za-z0-9._-]{1,256}$/;

/** A hit: the entry and a signed link to its archive. */
export type CacheHit = { readonly entry: CacheEntry; readonly link: CacheLink };

export type CacheServiceDeps = {
  readonly store: CacheStore;
  readonly blobs: CacheBlobs;
  readonly repos: Pick<RepoService, 'findById' | 'defaultBranch' | 'require'>;
  /** Largest total of a repository's entries (`service.ci.cache-size`). */
  readonly sizeLimit: number;
  readonly now?: () => number;
};

function checkKey(key: string): string {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || key.includes(',')) {
    throw new Invalid(`a cache key has 1 to ${MAX_KEY_LENGTH} characters and no comma`);
  }
  return key;
}

function checkVersion(version: string): string {
  if (!VERSION.test(version)) throw new Invalid('the cache version is missing or malformed');
  return version;
}

/**
 * The CI cache `actions/cache` speaks to: lookups by key and version across the scopes a run
 * may read (cache-scopes.ts), reservations, uploads in parts, commits, signed downloads, the
 * per-repository size limit with least-recently-used eviction, and housekeeping. A caller is a
 * running task, named by id: the edge resolves the bearer it presented.
 */
export class CiCacheService {
  readonly #deps: CacheServiceDeps;
  readonly #now: () => number;
  /** The shard of archives the next sweep checks for strays. */
  #nextShard = 0;
  /** The last use stamped by this process (see `#useStamp`). */
  #lastUse = 0;

  constructor(deps: CacheServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /**
   * When an entry is used (committed or read), strictly after this process's previous use: two
   * uses within one millisecond would otherwise tie, and eviction would then take the older
   * entry by id although it was used last.
   */
  #useStamp(): number {
    this.#lastUse = Math.max(this.#now(), this.#lastUse + 1);
    return this.#lastUse;
  }

  /** The repository and scopes of a running task; Unauthenticated once it has ended. */
  async scopesOfTask(taskId: number): Promise<{ repoId: string; scopes: CacheScopes }> {
    const run = await this.#deps.store.runOfTask(taskId);
    const repo = run && (await this.#deps.repos.findById(run.repoId));
    if (!run || !repo) throw new Unauthenticated('the task is not running');
    const defaultBranch = await this.#deps.repos.defaultBranch(repo);
    return { repoId: run.repoId, scopes: cacheScopesOf({ ...run, defaultBranch }) };
  }

  /**
   * The entry a restore gets: per readable scope in order, per key in order, the entry of that
   * key exactly, else the newest whose key starts with it. Undefined on a miss.
   */
  async find(taskId: number, keys: readonly string[], version: string) {
    if (keys.length === 0 || keys.length > MAX_KEYS) {
      throw new Invalid(`a lookup names 1 to ${MAX_KEYS} keys`);
    }
    const prefixes = keys.map((key) => checkKey(key).toLowerCase());
    checkVersion(version);
    const { repoId, scopes } = await this.scopesOfTask(taskId);
    for (const scope of scopes.read) {
      for (const prefix of prefixes) {
        const entry = await this.#deps.store.match(repoId, scope, version, prefix);
        if (entry) {
          const now = this.#useStamp();
          await this.#deps.store.touchAccess(entry.id, now);
          return { entry, link: signLink(entry.linkSecret, entry.id, now) } satisfies CacheHit;
        }
      }
    }
    return undefined;
  }

  /** Reserves `key` at `version` in the task's write scope; its id. */
  async reserve(taskId: number, key: string, version: string, size: number | undefined) {
    checkKey(key);
    checkVersion(version);
    const { sizeLimit } = this.#deps;
    if (size !== undefined && size > sizeLimit) {
      throw new TooLarge(`the cache is ${size} bytes, more than this repository keeps`);
    }
    const { repoId, scopes } = await this.scopesOfTask(taskId);
    const entry = await this.#deps.store.reserve(
      { repoId, scope: scopes.write, key, version, linkSecret: newLinkSecret() },
      this.#now(),
    );
    return entry.id;
  }

  /** A reservation the task may write: its repository's, in its write scope. */
  async #reservation(taskId: number, id: number): Promise<CacheEntry> {
    const { repoId, scopes } = await this.scopesOfTask(taskId);
    const entry = await this.#deps.store.byId(id);
    if (!entry || entry.repoId !== repoId || entry.scope !== scopes.write) {
      throw new NotFound('no such cache reservation');
    }
    if (entry.status !== 'reserved') throw new Conflict('this cache is already committed');
    return entry;
  }

  /** Writes one part of an upload; parts may come in any order and at once. */
  async upload(taskId: number, id: number, range: ByteRange, body: Readable): Promise<void> {
    const length = range.end - range.start + 1;
    if (range.start < 0 || length < 1 || length > MAX_PART_BYTES) {
      throw new Invalid(`a part holds 1 to ${MAX_PART_BYTES} bytes`);
    }
    if (range.end >= this.#deps.sizeLimit) {
      throw new TooLarge('the cache would be larger than this repository keeps');
    }
    await this.#reservation(taskId, id);
    await this.#deps.blobs.write(id, range.start, length, body);
    await this.#deps.store.touchUpload(id, this.#now());
  }

  /** Commits an upload of `size` bytes, then evicts what the repository holds past its limit. */
  async commit(taskId: number, id: number, size: number): Promise<void> {
    const entry = await this.#reservation(taskId, id);
    const written = await this.#deps.blobs.size(id);
    if (written !== size) {
      throw new Invalid(`the upload holds ${written} bytes, not the ${size} committed`);
    }
    if (!(await this.#deps.store.commit(id, size, this.#useStamp()))) {
      throw new Conflict('this cache is already committed');
    }
    await this.#evict(entry.repoId, id);
  }

  /** Removes the least recently used entries (never `keep`) until the repository fits. */
  async #evict(repoId: string, keep: number): Promise<void> {
    let total = await this.#deps.store.totalSize(repoId);
    if (total <= this.#deps.sizeLimit) return;
    const oldestFirst = await this.#deps.store.leastRecentlyUsed(repoId, 1000);
    const doomed: number[] = [];
    for (const entry of oldestFirst) {
      if (total <= this.#deps.sizeLimit) break;
      if (entry.id === keep) continue;
      doomed.push(entry.id);
      total -= entry.size;
    }
    await this.#remove(doomed);
  }

  async #removeIds(ids: readonly number[]): Promise<number[]> {
    const removed = await this.#deps.store.remove(ids);
    for (const id of removed) await this.#deps.blobs.remove(id);
    return removed;
  }

  async #remove(ids: readonly number[]): Promise<number> {
    return (await this.#removeIds(ids)).length;
  }

  /**
   * The archive a signed link names: its size, and `copy`, which hands it whole or a range of it
   * to a sink in reused buffers (CacheBlobs.copy). NotFound
   * for a bad or expired signature as for a missing entry: the link is the only credential.
   */
  async download(link: CacheLink) {
    const entry = await this.#deps.store.byId(link.id);
    if (entry?.status !== 'ready' || !linkIsValid(entry.linkSecret, link, this.#now())) {
      throw new NotFound('no such cache archive, or the link has expired');
    }
    const { blobs } = this.#deps;
    return {
      size: entry.size,
      copy: (range: ByteRange | undefined, sink: (bytes: Buffer) => Promise<void>) =>
        blobs.copy(entry.id, range, sink),
    };
  }

  /** A page of a repository's entries, most recently used first, and their count; for writers. */
  async list(user: User, owner: string, name: string, filter: CacheFilter, page: Page) {
    const { repo } = await this.#deps.repos.require(user, owner, name, 'write');
    const { store } = this.#deps;
    const [entries, total] = await Promise.all([
      store.list(repo.id, filter, page),
      store.count(repo.id, filter),
    ]);
    return { entries, total };
  }

  /** Deletes a repository's entries of `key` (and of `scope`, when given); the entries gone. */
  async deleteByKey(user: User, owner: string, name: string, key: string, scope?: string) {
    const { repo } = await this.#deps.repos.require(user, owner, name, 'write');
    const lower = key.toLowerCase();
    const entries = (await this.#deps.store.list(repo.id, { scope, keyPrefix: key })).filter(
      (entry) => entry.key.toLowerCase() === lower,
    );
    const gone = new Set(await this.#removeIds(entries.map((entry) => entry.id)));
    if (gone.size === 0) throw new NotFound('no cache has this key');
    return entries.filter((entry) => gone.has(entry.id));
  }

  /** Deletes one entry of a repository. */
  async deleteById(user: User, owner: string, name: string, id: number): Promise<void> {
    const { repo } = await this.#deps.repos.require(user, owner, name, 'write');
    const entry = await this.#deps.store.byId(id);
    if (!entry || entry.repoId !== repo.id || entry.status !== 'ready') {
      throw new NotFound('no such cache');
    }
    await this.#remove([id]);
  }

  /**
   * Housekeeping: abandoned reservations and entries idle for a week go, and so do the archives
   * of one shard (in turn) whose entry is gone — a deleted repository's entries go with it in
   * the database, while their files stay until this finds them. How many entries went.
   */
  async sweep(): Promise<number> {
    const now = this.#now();
    const { store, blobs } = this.#deps;
    const removed = await this.#remove(
      await store.stale(now - ABANDONED_UPLOAD_MS, now - IDLE_ENTRY_MS),
    );
    const shard = this.#nextShard;
    this.#nextShard = (shard + 1) % 256;
    const ids = await blobs.idsInShard(shard);
    for (let start = 0; start < ids.length; start += 500) {
      const batch = ids.slice(start, start + 500);
      const kept = await store.existing(batch);
      for (const id of batch) if (!kept.has(id)) await blobs.remove(id);
    }
    return removed;
  }
}
