import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePermissions,
  encodePermissions,
  jobPermissions,
  NO_PERMISSIONS,
  narrow,
  PERMISSION_SCOPES,
  type PermissionLevel,
  type Permissions,
  READ_ALL,
  readPermissions,
  tokenBoundsOf,
  WRITE_ALL,
} from './permissions.ts';

const RANK: Readonly<Record<'none' | 'read' | 'write', number>> = { none: 0, read: 1, write: 2 };
const level = fc.constantFrom<PermissionLevel>('none', 'read', 'write');
const permissions: fc.Arbitrary<Permissions> = fc.record(
  Object.fromEntries(PERMISSION_SCOPES.map((scope) => [scope, level])) as Record<
    (typeof PERMISSION_SCOPES)[number],
    fc.Arbitrary<PermissionLevel>
  >,
);
/** What a workflow may write: a shorthand or a partial mapping. */
const written = fc.oneof(
  fc.constantFrom<unknown>('read-all', 'write-all', {}),
  fc.dictionary(fc.constantFrom(...PERMISSION_SCOPES), level, { maxKeys: 6 }),
);

function atMost(a: string | undefined, b: string | undefined): boolean {
  return RANK[(a ?? 'none') as PermissionLevel] <= RANK[(b ?? 'none') as PermissionLevel];
}

describe('permissions', () => {
  it('reads the shorthands and leaves every scope not named at none', () => {
    expect(readPermissions('read-all', 'w')).toEqual(READ_ALL);
    expect(readPermissions('write-all', 'w')).toEqual(WRITE_ALL);
    expect(readPermissions({}, 'w')).toEqual(NO_PERMISSIONS);
    expect(readPermissions({ contents: 'read' }, 'w')?.issues).toBe('none');
    expect(readPermissions(undefined, 'w')).toBeUndefined();
  });

  it('refuses unknown scopes and levels, naming them', () => {
    expect(() => readPermissions({ everything: 'write' }, 'job "a"')).toThrow(/everything/);
    expect(() => readPermissions({ contents: 'admin' }, 'job "a"')).toThrow(/contents/);
    expect(() => readPermissions('all', 'job "a"')).toThrow(/read-all/);
  });

  it('never grants more than the caller bound, the workflow or the job allow', () => {
    fc.assert(
      fc.property(permissions, written, fc.option(written), (bound, workflow, job) => {
        const fromWorkflow = readPermissions(workflow, 'w');
        const fromJob = job === null ? undefined : readPermissions(job, 'j');
        const effective = jobPermissions(bound, fromWorkflow, fromJob);
        const own = fromJob ?? fromWorkflow ?? WRITE_ALL;
        for (const scope of PERMISSION_SCOPES) {
          expect(atMost(effective[scope], bound[scope])).toBe(true);
          expect(atMost(effective[scope], own[scope])).toBe(true);
        }
      }),
    );
  });

  it('narrows as a meet: commutative, idempotent, below both', () => {
    fc.assert(
      fc.property(permissions, permissions, (a, b) => {
        expect(narrow(a, b)).toEqual(narrow(b, a));
        expect(narrow(a, a)).toEqual(a);
        expect(narrow(narrow(a, b), a)).toEqual(narrow(a, b));
      }),
    );
  });

  it('gives a token no push without contents: write, nothing for {}, and never more than its cap', () => {
    fc.assert(
      fc.property(permissions, fc.boolean(), level, (granted, fork, actor) => {
        const cap = fork ? (actor === 'none' ? 'none' : 'read') : actor;
        const bounds = tokenBoundsOf(granted, cap);
        if (cap !== 'write') expect(bounds.level).not.toBe('write');
        if (cap === 'none') expect(bounds.level).toBe('none');
        if (granted.contents !== 'write' || fork) expect(bounds.level).not.toBe('write');
        if (fork) expect([...bounds.scopes.values()]).not.toContain('write');
        if (bounds.level === 'none') expect(bounds.scopes.size).toBe(0);
        // A token may never gain a scope outside repositories and issues.
        for (const category of bounds.scopes.keys()) {
          expect(['repository', 'issue']).toContain(category);
        }
        // Raising any one scope never lowers what the token holds (the mapping is monotone).
        for (const scope of PERMISSION_SCOPES) {
          const raised = tokenBoundsOf({ ...granted, [scope]: 'write' }, cap);
          expect(atMost(bounds.level, raised.level)).toBe(true);
          for (const [category, held] of bounds.scopes) {
            expect(atMost(held, raised.scopes.get(category))).toBe(true);
          }
        }
      }),
    );
    expect(tokenBoundsOf(NO_PERMISSIONS, 'write')).toEqual({ level: 'none', scopes: new Map() });
    expect(tokenBoundsOf(WRITE_ALL, 'read').level).toBe('read');
    expect(tokenBoundsOf(WRITE_ALL, 'write').scopes.get('repository')).toBe('write');
  });

  it('stores and reads back every set of permissions; what cannot be read grants nothing', () => {
    fc.assert(
      fc.property(permissions, (granted) => {
        expect(decodePermissions(encodePermissions(granted))).toEqual(granted);
      }),
    );
    expect(decodePermissions(null)).toEqual(WRITE_ALL);
    expect(decodePermissions('{not json')).toEqual(NO_PERMISSIONS);
  });
});
