/**
 * Which step and action is running, as GitHub's runner tells a step: `GITHUB_ACTION` (the step's
 * `id`, else `__run` for a script and `__owner_repo` for an action, `__self` for one in the
 * workspace, with `_2`, `_3` … when a name comes again), `GITHUB_ACTION_PATH`,
 * `GITHUB_ACTION_REPOSITORY` and `GITHUB_ACTION_REF`, and the same as `github.action*`.
 */
import type { StepSpec } from './workflow.ts';

/** The running step's action, empty but for `name` while a script runs. */
export type ActionIdentity = {
  readonly name: string;
  readonly path: string;
  readonly repository: string;
  readonly ref: string;
};

/** No step running: between steps and while the job's own expressions are evaluated. */
export const NO_ACTION: ActionIdentity = { name: '', path: '', repository: '', ref: '' };

/** The name GitHub gives a step without an `id` that runs `uses` (a script when undefined). */
export function generatedName(uses: string | undefined): string {
  if (uses === undefined) return '__run';
  if (uses.startsWith('./')) return '__self';
  const at = uses.lastIndexOf('@');
  const address = (at < 0 ? uses : uses.slice(0, at)).replace(/^https?:\/\/[^/]+\//, '');
  const [owner = '', repo = ''] = address.split('/');
  return `__${owner}_${repo}`.replace(/[^A-Za-z0-9_-]/g, '');
}

/** The `GITHUB_ACTION` of each step, in order. */
export function actionNames(steps: readonly StepSpec[]): string[] {
  const seen = new Map<string, number>();
  return steps.map((step) => {
    if (step.id !== undefined) return step.id;
    const base = generatedName(step.uses);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}_${count}`;
  });
}

/** The variables of `identity`, with Gitea's `GITEA_*` twins. */
export function identityEnv(identity: ActionIdentity): Record<string, string> {
  const env: Record<string, string> = {
    GITHUB_ACTION: identity.name,
    GITHUB_ACTION_PATH: identity.path,
    GITHUB_ACTION_REPOSITORY: identity.repository,
    GITHUB_ACTION_REF: identity.ref,
  };
  for (const [key, value] of Object.entries(env)) env[`GITEA_${key.slice(7)}`] = value;
  return env;
}

/** The `github.action*` keys of `identity`. */
export function identityContext(identity: ActionIdentity): Record<string, string> {
  return {
    action: identity.name,
    action_path: identity.path,
    action_repository: identity.repository,
    action_ref: identity.ref,
  };
}
