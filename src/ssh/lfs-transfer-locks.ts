import { Forbidden } from '../domain/errors.ts';
import type { LfsLock } from '../domain/lfs/lfs.types.ts';
import { LockTaken } from '../domain/lfs/lfs-lock.service.ts';
import type { TransferCommand, TransferSession } from './lfs-transfer-session.ts';
import { argumentsOf } from './lfs-transfer-wire.ts';

/** A lock as the arguments of a reply: `id=`, `path=`, `locked-at=`, `ownername=`. */
function lockArgs(lock: LfsLock): string[] {
  return [
    `id=${lock.id}`,
    `path=${lock.path}`,
    `locked-at=${lock.lockedAt.toISOString()}`,
    `ownername=${lock.ownerHandle}`,
  ];
}

/** A lock as the lines of a listing, each naming the lock's id, and whose it is. */
function lockLines(lock: LfsLock, who: 'ours' | 'theirs'): string[] {
  const id = lock.id;
  return [
    `lock ${id}`,
    `path ${id} ${lock.path}`,
    `locked-at ${id} ${lock.lockedAt.toISOString()}`,
    `ownername ${id} ${lock.ownerHandle}`,
    `owner ${id} ${who}`,
  ];
}

/** Push access and the person who acts: locks are always someone's. */
async function writer(session: TransferSession) {
  const { visible, user } = await session.access(true);
  if (!user) throw new Forbidden('This key acts for no one who may lock files.');
  return { visible, user };
}

/**
 * `lock` with `path=` (and `refname=`, which locks ignore, as Gitea's do: a lock holds a path in
 * every branch). 201 with the lock, or 409 with the lock that holds the path already.
 */
export const lock: TransferCommand = async (session) => {
  const args = argumentsOf(await session.source.lines('flush'));
  const { visible, user } = await writer(session);
  try {
    const made = await session.services.lfsLocks.lock(visible, user, args.get('path'));
    return { status: 201, args: lockArgs(made) };
  } catch (error) {
    if (!(error instanceof LockTaken)) throw error;
    return { status: 409, args: lockArgs(error.lock), lines: [error.message] };
  }
};

/**
 * `list-lock` (git lfs locks: read access, narrowed by `path=`, `id=`, paged by `cursor=` and
 * `limit=`) and `list-locks` (the check before a push: push access, every lock marked ours or
 * theirs). A `refspec=` or `refname=` narrows nothing, as in the HTTP API.
 */
export function listLocks(verify: boolean): TransferCommand {
  return async (session) => {
    const args = argumentsOf(await session.source.lines('flush'));
    const query = {
      path: args.get('path'),
      id: args.get('id'),
      cursor: args.get('cursor'),
      limit: args.get('limit'),
    };
    const locks = session.services.lfsLocks;
    const lines: string[] = [];
    let next: string | undefined;
    if (verify) {
      const { visible, user } = await writer(session);
      const found = await locks.verify(visible, user, query);
      for (const held of found.ours) lines.push(...lockLines(held, 'ours'));
      for (const held of found.theirs) lines.push(...lockLines(held, 'theirs'));
      next = found.nextCursor;
    } else {
      const { visible, user } = await session.access(false);
      const page = await locks.list(visible, query);
      for (const held of page.locks) {
        lines.push(...lockLines(held, held.ownerId === user?.id ? 'ours' : 'theirs'));
      }
      next = page.nextCursor;
    }
    return { status: 200, args: next ? [`next-cursor=${next}`] : [], lines };
  };
}

/** `unlock ID`, with `force=true` for an administrator removing someone else's lock. */
export const unlock: TransferCommand = async (session, words) => {
  const args = argumentsOf(await session.source.lines('flush'));
  const { visible, user } = await writer(session);
  const force = args.get('force') === 'true';
  const removed = await session.services.lfsLocks.unlock(visible, user, words[0] ?? '', force);
  return { status: 200, args: lockArgs(removed) };
};
