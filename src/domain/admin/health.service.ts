import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Database } from '../../db/database.ts';

/**
 * How long a data dir found readable and writable is taken to stay so. The check goes through
 * libuv's thread pool, which pages reading refs and files keep busy: asked on every probe, a
 * loaded server answered `/healthz` only after that queue. A failure is never remembered.
 */
const DATA_DIR_FRESH_MS = 1000;

/** Whether this process can serve: what `/healthz` asks, without knowing how it is stored. */
export class HealthService {
  readonly #database: Pick<Database, 'ping'>;
  readonly #dataDir: string;
  readonly #now: () => number;
  #dataDirFoundAt = Number.NEGATIVE_INFINITY;

  constructor(database: Pick<Database, 'ping'>, dataDir: string, now: () => number = Date.now) {
    this.#database = database;
    this.#dataDir = dataDir;
    this.#now = now;
  }

  /**
   * Resolves when the database answers and the data dir is readable and writable (checked at
   * most once a second while it is).
   */
  async check(): Promise<void> {
    await this.#database.ping();
    if (this.#now() - this.#dataDirFoundAt < DATA_DIR_FRESH_MS) return;
    await access(this.#dataDir, constants.R_OK | constants.W_OK);
    this.#dataDirFoundAt = this.#now();
  }
}
