import { sha256Hex } from '../../lib/crypto.ts';
import type { TokenScopes } from '../tokens/token-scopes.ts';
import type { TaskScope } from '../users/actions-bot.ts';
import type { TaskTokenStore } from './task-token.store.ts';

/**
 * What a task token grants while its task runs: a level on its one repository and the token
 * scopes it is held to, both narrowed by its job's `permissions:` (permissions.ts).
 */
export type TaskGrant = TaskScope & { readonly scopes: TokenScopes };

/**
 * Task tokens (`GITHUB_TOKEN`, `GITEA_TOKEN`, `github.token`): 40 hex characters made when a
 * runner claims a job, stored only as SHA-256, and valid only while the task is running — the
 * hash is cleared when the task ends in any way (result, cancel, sweep), so a leaked token dies
 * with its job. The holder acts as the actions bot (users/actions-bot.ts): it writes to its own
 * repository as a writer without admin does (push, releases, tags, branches, pulls, statuses)
 * — only reads when the run is for a pull request from a fork — and reads elsewhere only what
 * anyone may; repo.policy.ts judges that.
 *
 * INVARIANT: a task token never does more than its job's `permissions:` allow. The grant made
 * here is the only way a task token becomes a viewer, on every edge (REST and git over HTTP go
 * through `viewerFromAuthorization`): its level is what repo.policy.ts answers for the task's
 * repository, its scopes what the token-scope check holds it to — at most `repository` and
 * `issue`, never `user`, `organization` or `admin`.
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
