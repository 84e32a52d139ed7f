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
  readonly #probeDataDir: () => Promise<void>;
  readonly #now: () => number;
  #dataDirFoundAt = Number.NEGATIVE_INFINITY;

  /** `probeDataDir` resolves when the data dir is readable and writable. */
  constructor(
    database: Pick<Database, 'ping'>,
    probeDataDir: () => Promise<void>,
    now: () => number = Date.now,
  ) {
    this.#database = database;
    this.#probeDataDir = probeDataDir;
    this.#now = now;
  }

  /**
   * Resolves when the database answers and the data dir is readable and writable (checked at
   * most once a second while it is).
   */
  async check(): Promise<void> {
    await this.#database.ping();
    if (this.#now() - this.#dataDirFoundAt < DATA_DIR_FRESH_MS) return;
    await this.#probeDataDir();
    this.#dataDirFoundAt = this.#now();
  }
}
