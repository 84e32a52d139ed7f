/**
 * Invariant: a runner that cannot keep jobs from its credentials (no account to drop to, no
 * working sandbox) runs nothing of a job for a pull request from a fork. Such a job is code from
 * someone who may have no say over the base repository; on an unisolated runner it could read
 * the registration file and take the repository's next jobs, secrets and all. Judged here, in the
 * runner, from the task's `github` context alone, so that it holds against any server (Kiln,
 * Gitea, Forgejo) whatever it dispatches.
 */

type Loose = Record<string, unknown>;

function object(value: unknown): Loose | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Loose)
    : undefined;
}

/** A repository of the payload as something comparable: its id, else its full name. */
function identity(side: unknown): string | undefined {
  const repo = object(object(side)?.repo);
  if (repo === undefined) return undefined;
  if (typeof repo.id === 'number' || (typeof repo.id === 'string' && repo.id !== ''))
    return `id:${repo.id}`;
  if (typeof repo.full_name === 'string' && repo.full_name !== '')
    return `name:${repo.full_name.toLowerCase()}`;
  return undefined;
}

/**
 * Whether the task runs for a pull request whose head is in another repository than its base.
 * Any `pull_request*` event counts; a head or base that cannot be told (a deleted fork has no
 * head repository) counts as a fork, since refusing is the safe side.
 */
export function isForkPull(context: Record<string, unknown>): boolean {
  const event = object(context.event);
  const name = typeof context.event_name === 'string' ? context.event_name : '';
  const pull = object(event?.pull_request);
  if (!name.startsWith('pull_request') && pull === undefined) return false;
  if (pull === undefined) return true;
  const head = identity(pull.head);
  const base = identity(pull.base);
  if (head === undefined || base === undefined) return true;
  // Ids are compared to ids, names to names; mixed shapes are not told apart, so refused.
  return head !== base;
}

/** The one log line of a refused job: why (`reason` the runner is unisolated), and how to fix it. */
export function forkPullRefusal(reason: string): string {
  return `this runner runs jobs unisolated (${reason}), so it runs no job of a pull request from a fork: start it as root (jobs then run as --job-user) or where bubblewrap works (apt-get install bubblewrap, user namespaces enabled), or run such jobs on another runner`;
}
