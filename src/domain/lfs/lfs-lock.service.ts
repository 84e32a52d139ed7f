import { Conflict, Forbidden, Invalid, NotFound } from '../errors.ts';
import { mayAdministerRepo } from '../repos/repo.policy.ts';
import type { VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { LfsLock, LfsLockPage } from './lfs.types.ts';
import type { LfsLockStore } from './lfs-lock.store.ts';

/** Locks a page holds when the client names no limit, and the most it may ask for. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const MAX_PATH = 4096;

export type LockQuery = {
  readonly path?: string | undefined;
  readonly id?: string | undefined;
  readonly cursor?: string | undefined;
  readonly limit?: string | number | undefined;
};

/** A lock refused because the path is locked already; carries the lock that holds it. */
export class LockTaken extends Conflict {
  readonly lock: LfsLock;

  constructor(lock: LfsLock) {
    super('already created lock');
    this.lock = lock;
  }
}

/**
 * File locks of `git lfs lock`. The edge has checked the caller's access as git does (read to
 * list, write for the rest); owners unlock their own locks, and only a repository's
 * administrators may force away someone else's.
 */
export class LfsLockService {
  readonly #store: LfsLockStore;
  readonly #now: () => number;

  constructor(store: LfsLockStore, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** Locks `path` for `owner`; LockTaken when it is locked already. */
  async lock(repo: VisibleRepo, owner: User, path: unknown): Promise<LfsLock> {
    const clean = cleanPath(path);
    try {
      const id = await this.#store.create(repo.repo.id, clean, owner.id, this.#now());
      const made = await this.#store.list(repo.repo.id, { id, limit: 1 });
      if (made[0]) return made[0];
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
    }
    const held = await this.#store.byPath(repo.repo.id, clean);
    if (held) throw new LockTaken(held);
    throw new Conflict('The lock was removed while it was being made; try again.');
  }

  /** A page of the repository's locks, narrowed by path or id. */
  async list(repo: VisibleRepo, query: LockQuery, ownerId?: string): Promise<LfsLockPage> {
    const limit = parseLimit(query.limit);
    const locks = await this.#store.list(repo.repo.id, {
      path: query.path === undefined || query.path === '' ? undefined : cleanPath(query.path),
      id: query.id === undefined || query.id === '' ? undefined : parseId(query.id),
      fromId: query.cursor === undefined || query.cursor === '' ? undefined : parseId(query.cursor),
      ownerId,
      limit: limit + 1,
    });
    const next = locks[limit];
    return {
      locks: locks.slice(0, limit),
      ...(next ? { nextCursor: String(next.id) } : {}),
    };
  }

  /**
   * The locks a push must respect, split into the pusher's own and everybody else's; git-lfs
   * refuses to push changes to a path in `theirs`.
   */
  async verify(
    repo: VisibleRepo,
    pusher: User,
    query: LockQuery,
  ): Promise<{ ours: LfsLock[]; theirs: LfsLock[]; nextCursor?: string }> {
    const page = await this.list(repo, { cursor: query.cursor, limit: query.limit });
    return {
      ours: page.locks.filter((lock) => lock.ownerId === pusher.id),
      theirs: page.locks.filter((lock) => lock.ownerId !== pusher.id),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  }

  /** Removes lock `id`: the owner's own, or anyone's with `force` by an administrator. */
  async unlock(repo: VisibleRepo, actor: User, id: string, force: boolean): Promise<LfsLock> {
    const [lock] = await this.#store.list(repo.repo.id, { id: parseId(id), limit: 1 });
    if (!lock) throw new NotFound('Lock not found.');
    if (lock.ownerId !== actor.id) {
      if (!force) throw new Forbidden('The lock belongs to someone else; unlock it with --force.');
      if (!mayAdministerRepo(repo.access)) {
        throw new Forbidden("Only the repository's administrators may remove others' locks.");
      }
    }
    if (!(await this.#store.delete(repo.repo.id, lock.id))) throw new NotFound('Lock not found.');
    return lock;
  }
}

function cleanPath(path: unknown): string {
  if (typeof path !== 'string' || path === '' || path.length > MAX_PATH || path.includes('\0')) {
    throw new Invalid('A lock needs a path.');
  }
  return path;
}

function parseId(value: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(value)) throw new Invalid('Invalid lock id.');
  return Number(value);
}

function parseLimit(value: string | number | undefined): number {
  if (value === undefined || value === '') return DEFAULT_LIMIT;
  const limit = Number(value);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Invalid('Invalid limit.');
  return Math.min(limit, MAX_LIMIT);
}
