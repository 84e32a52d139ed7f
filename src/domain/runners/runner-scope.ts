import type { RunnerScopeKind } from '../../db/tables.ts';
import type { RunnerScope } from './runner.types.ts';

/** The scope columns shared by `runners` and `runner_registration_tokens`. */
export type ScopeColumns = {
  scope_kind: RunnerScopeKind;
  scope_repo_id: string | null;
  scope_org_id: string | null;
};

/** Scope → the three columns that store it. Pure. */
export function scopeColumns(scope: RunnerScope): ScopeColumns {
  switch (scope.kind) {
    case 'instance':
      return { scope_kind: 'instance', scope_repo_id: null, scope_org_id: null };
    case 'repository':
      return { scope_kind: 'repository', scope_repo_id: scope.repoId, scope_org_id: null };
    case 'organisation':
      return { scope_kind: 'organisation', scope_repo_id: null, scope_org_id: scope.orgId };
  }
}

/**
 * The three columns → a scope. A row whose id column is missing for its kind cannot come from
 * this code; reading it as instance-wide would widen access, so it throws instead.
 */
export function scopeOf(row: ScopeColumns): RunnerScope {
  if (row.scope_kind === 'instance') return { kind: 'instance' };
  if (row.scope_kind === 'repository' && row.scope_repo_id !== null) {
    return { kind: 'repository', repoId: row.scope_repo_id };
  }
  if (row.scope_kind === 'organisation' && row.scope_org_id !== null) {
    return { kind: 'organisation', orgId: row.scope_org_id };
  }
  throw new Error(`inconsistent runner scope columns (${row.scope_kind})`);
}

/** Whether two scopes are the same. Pure. */
export function sameScope(a: RunnerScope, b: RunnerScope): boolean {
  const left = scopeColumns(a);
  const right = scopeColumns(b);
  return (
    left.scope_kind === right.scope_kind &&
    left.scope_repo_id === right.scope_repo_id &&
    left.scope_org_id === right.scope_org_id
  );
}
