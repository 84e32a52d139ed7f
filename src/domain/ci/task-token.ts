import { sha256Hex } from '../../lib/crypto.ts';
import type { TokenScopes } from '../tokens/token-scopes.ts';
import type { TaskScope } from '../users/actions-bot.ts';
import type { RuntimeTokens } from './runtime-token.ts';
import type { TaskTokenStore } from './task-token.store.ts';

/**
 * The scopes a task token is held to, as a personal access token would be: repositories
 * (code, releases, tags, branches, pulls, statuses) and issues (labels) — never `user`,
 * `organization` or `admin`, so every endpoint of those categories is refused.
 */
export const TASK_TOKEN_SCOPES: TokenScopes = new Map([
  ['issue', 'write'],
  ['repository', 'write'],
]);

/** What a task token grants while its task runs: a level on its one repository. */
export type TaskGrant = TaskScope;

/**
 * Task tokens (`GITHUB_TOKEN`, `GITEA_TOKEN`, `github.token`): 40 hex characters made when a
 * runner claims a job, stored only as SHA-256, and valid only while the task is running — the
 * hash is cleared when the task ends in any way (result, cancel, sweep), so a leaked token dies
 * with its job. The holder acts as the actions bot (users/actions-bot.ts): it writes to its own
 * repository as a writer without admin does (push, releases, tags, branches, pulls, statuses)
 * — only reads when the run is for a pull request from a fork — and reads elsewhere only what
 * anyone may; repo.policy.ts judges that.
 */
export class CiTaskTokens {
  readonly #store: TaskTokenStore;
  readonly #runtime: RuntimeTokens | undefined;

  constructor(store: TaskTokenStore, runtime?: RuntimeTokens) {
    this.#store = store;
    this.#runtime = runtime;
  }

  /**
   * The grant behind an `ACTIONS_RUNTIME_TOKEN`, for the services steps reach with it
   * (artifacts, cache): the task's runtime JWT, or the plain task token, which runners that
   * receive no runtime token pass instead. Either only while the task runs.
   */
  async authenticateRuntime(token: string): Promise<TaskGrant | undefined> {
    const claims = this.#runtime?.verify(token);
    if (claims !== undefined) return this.#store.findRunningGrantOfTask(claims.taskId);
    return this.authenticate(token);
  }

  /** The grant of a live task token, or undefined for anything else. */
  async authenticate(token: string): Promise<TaskGrant | undefined> {
    if (!/^[0-9a-f]{40}$/.test(token)) return undefined;
    return this.#store.findRunningGrant(sha256Hex(token));
  }
}
