import { sha256Hex } from '../../lib/crypto.ts';
import type { TokenScopes } from '../tokens/token-scopes.ts';
import type { TaskScope } from '../users/actions-bot.ts';
import type { RuntimeTokens } from './runtime-token.ts';
import type { RunningTask, TaskTokenStore } from './task-token.store.ts';
import { type PermissionLevel, tokenBoundsOf } from './workflow/permissions.ts';

/**
 * The most a run's actor may do on a repository now (`read`, `write`…), or undefined when the
 * actor is no person (an organisation's own scheduled run): the token is held below it.
 */
export type ActorBound = (actorId: string, repoId: string) => Promise<string | undefined>;

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
  readonly #actorBound: ActorBound | undefined;
  readonly #runtime: RuntimeTokens | undefined;

  constructor(
    store: TaskTokenStore,
    options: { readonly actorBound?: ActorBound; readonly runtime?: RuntimeTokens } = {},
  ) {
    this.#store = store;
    this.#actorBound = options.actorBound;
    this.#runtime = options.runtime;
  }

  /**
   * The grant behind an `ACTIONS_RUNTIME_TOKEN`, for the services steps reach with it
   * (artifacts, cache): the task's runtime JWT, or the plain task token, which runners that
   * receive no runtime token pass instead. Either only while the task runs, and bounded as
   * `authenticate` bounds the task token.
   */
  async authenticateRuntime(token: string): Promise<TaskGrant | undefined> {
    const claims = this.#runtime?.verify(token);
    if (claims !== undefined) return this.#grant(await this.#store.findRunningTask(claims.taskId));
    return this.authenticate(token);
  }

  /**
   * The grant of a live task token, or undefined for anything else: what its job's
   * `permissions:` allow (permissions.ts), at most read for a pull request from a fork, whose
   * code nobody with write access has vetted, and never more than the run's actor may do on the
   * repository now — a writer removed while their run goes on takes the token's writes along.
   */
  async authenticate(token: string): Promise<TaskGrant | undefined> {
    if (!/^[0-9a-f]{40}$/.test(token)) return undefined;
    return this.#grant(await this.#store.findRunning(sha256Hex(token)));
  }

  async #grant(task: RunningTask | undefined): Promise<TaskGrant | undefined> {
    if (task === undefined) return undefined;
    let cap: PermissionLevel = task.forkPull ? 'read' : 'write';
    if (this.#actorBound !== undefined && task.actorId !== null) {
      const actor = await this.#actorBound(task.actorId, task.repoId);
      if (actor === 'none') cap = 'none';
      else if (actor === 'read') cap = 'read';
    }
    const { level, scopes } = tokenBoundsOf(task.permissions, cap);
    return { taskId: task.taskId, repoId: task.repoId, level, scopes };
  }
}
