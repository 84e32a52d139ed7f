import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { EventBus } from '../domain/events.ts';
import { LfsService } from '../domain/lfs/lfs.service.ts';
import { LfsLockService } from '../domain/lfs/lfs-lock.service.ts';
import { LfsLockStore } from '../domain/lfs/lfs-lock.store.ts';
import { LfsObjectStore } from '../domain/lfs/lfs-object.store.ts';
import { LfsSshGrants } from '../domain/lfs/lfs-ssh-grant.ts';
import { LfsObjectFiles } from '../storage/lfs-object-files.ts';

/**
 * Git LFS objects over a database and a data directory: built here, and by commands that build
 * no whole app (`kiln doctor`). The bytes sit in the data directory replicas share, one file per
 * content hash.
 */
export function lfsService(
  database: Pick<Database, 'db' | 'dialect'>,
  dataDir: string,
  maxFileSize: number,
): LfsService {
  return new LfsService({
    store: new LfsObjectStore(database.db, database.dialect),
    bytes: new LfsObjectFiles(join(dataDir, 'lfs')),
    maxFileSize,
  });
}

/** Git LFS: objects (batch, transfers, pointers on pages, forks' shares, orphans) and locks. */
export function buildLfs(config: Config, database: Database, dataDir: string) {
  return {
    lfs: lfsService(database, dataDir, config.lfs.maxFileSize),
    lfsLocks: new LfsLockService(new LfsLockStore(database.db)),
    lfsSshGrants: new LfsSshGrants(config.secretKey),
  };
}

/** A fork reaches its parent's objects from the moment it exists, as it does its commits. */
export function subscribeLfs(
  events: Pick<EventBus, 'subscribe'>,
  lfs: Pick<LfsService, 'shareWithFork'>,
): void {
  events.subscribe('repo.forked', async ({ fork, source }) => lfs.shareWithFork(source, fork));
}
