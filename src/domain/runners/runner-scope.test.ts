import { describe, expect, it } from 'vitest';
import type { RunnerScope } from './runner.types.ts';
import { sameScope, scopeColumns, scopeOf } from './runner-scope.ts';

describe('runner scope columns', () => {
  it('round-trips every scope', () => {
    const scopes: RunnerScope[] = [
      { kind: 'instance' },
      { kind: 'repository', repoId: 'r1' },
      { kind: 'organisation', orgId: 'o1' },
    ];
    for (const scope of scopes) expect(scopeOf(scopeColumns(scope))).toEqual(scope);
  });

  it('refuses a row whose id is missing for its kind rather than widening it', () => {
    expect(() =>
      scopeOf({ scope_kind: 'repository', scope_repo_id: null, scope_org_id: null }),
    ).toThrow();
  });

  it('compares scopes by kind and id', () => {
    expect(
      sameScope({ kind: 'repository', repoId: 'a' }, { kind: 'repository', repoId: 'a' }),
    ).toBe(true);
    expect(
      sameScope({ kind: 'repository', repoId: 'a' }, { kind: 'repository', repoId: 'b' }),
    ).toBe(false);
    expect(sameScope({ kind: 'instance' }, { kind: 'organisation', orgId: 'a' })).toBe(false);
  });
});
