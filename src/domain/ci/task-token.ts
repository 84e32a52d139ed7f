import { sha256Hex } from '../../lib/crypto.ts';
import type { TaskTokenStore } from './task-token.store.ts';

/** What a task token grants while its task runs. */
export type TaskGrant = {
  readonly taskId: number;
  /** The one repository the token works for. */
  readonly repoId: string;
};

/**
 * Task tokens (`GITHUB_TOKEN`, `GITEA_TOKEN`, `github.token`): 40 hex characters made when a
 * runner claims a job, stored only as SHA-256, and valid only while the task is running — the
 * hash is cleared when the task ends in any way (result, cancel, sweep), so a leaked token dies
 * with its job. A token grants reading its own repository and nothing else.
 */
export class CiTaskTokens {
  readonly #store: TaskTokenStore;

  constructor(store: TaskTokenStore) {
    this.#store = store;
  }

  /** The grant of a live task token, or undefined for anything else. */
  async authenticate(token: string): Promise<TaskGrant | undefined> {
    if (!/^[0-9a-f]{40}$/.test(token)) return undefined;
    return this.#store.findRunningGrant(sha256Hex(token));
  }
}
