import type { User } from '../users/user.types.ts';
import type { RunnerScope } from './runner.types.ts';

/**
 * Who manages runners and registration tokens. The command line is the operator, who owns the
 * instance; everyone else is a signed-in person.
 */
export type RunnerActor =
  | { readonly kind: 'operator' }
  | { readonly kind: 'user'; readonly user: User };

export const OPERATOR: RunnerActor = Object.freeze({ kind: 'operator' });

/** What the caller was found to be in the scope being managed (computed by the caller). */
export type ScopeGrants = {
  /** Admin of the repository of a repository scope. */
  readonly isRepoAdmin?: boolean;
  /** Owner of the organisation of an organisation scope. */
  readonly isOrgOwner?: boolean;
};

/**
 * Whether the actor may mint, see and delete tokens and runners of `scope` (undefined: of every
 * scope at once). SPEC.md: instance tokens and runners are for admins; a repository's for its
 * owners; an organisation's for its owners (no page mints those yet). Admins may do all. Pure.
 */
export function mayManageRunners(
  actor: RunnerActor,
  isAdmin: boolean,
  scope: RunnerScope | undefined,
  grants: ScopeGrants,
): boolean {
  if (actor.kind === 'operator' || isAdmin) return true;
  if (scope === undefined) return false;
  switch (scope.kind) {
    case 'instance':
      return false;
    case 'repository':
      return grants.isRepoAdmin === true;
    case 'organisation':
      return grants.isOrgOwner === true;
  }
}
