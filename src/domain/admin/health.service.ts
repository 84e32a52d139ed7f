import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Database } from '../../db/database.ts';

/** Whether this process can serve: what `/healthz` asks, without knowing how it is stored. */
export class HealthService {
  readonly #database: Pick<Database, 'ping'>;
  readonly #dataDir: string;

  constructor(database: Pick<Database, 'ping'>, dataDir: string) {
    this.#database = database;
    this.#dataDir = dataDir;
  }

  /** Resolves when the database answers and the data dir is readable and writable. */
  async check(): Promise<void> {
    await this.#database.ping();
    await access(this.#dataDir, constants.R_OK | constants.W_OK);
  }
}
