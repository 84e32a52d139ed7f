import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accessLevel } from '../repos/repo.policy.ts';
import { atLeast, type CollaboratorPermission, type Repository } from '../repos/repo.types.ts';
import type { Account, User } from '../users/user.types.ts';
import { checkedTeamName, higherLevel, parseTeamPermission, teamLevelOn } from './team.policy.ts';
import type { TeamGrant } from './team.types.ts';

const at = new Date(0);
const org: Account = {
  id: 'org',
  handle: 'org',
  kind: 'org',
  email: null,
  fullName: '',
  description: '',
  createdAt: at,
  updatedAt: at,
};
const viewer: User = { ...org, id: 'u', handle: 'u', kind: 'user', email: 'u@example.test' };
const repo = (isPrivate: boolean): Repository => ({
  id: 'r',
  owner: org,
  name: 'r',
  description: '',
  private: isPrivate,
  parentId: null,
  createdAt: at,
  updatedAt: at,
});
const permission = fc.constantFrom<CollaboratorPermission>('read', 'write', 'admin');
const grant = fc.record({
  orgId: fc.constantFrom('org', 'elsewhere'),
  permission,
  includesAllRepositories: fc.boolean(),
  repoIds: fc.constantFrom(new Set<string>(), new Set(['r']), new Set(['other'])),
});

describe('team policy', () => {
  it('gives the highest level of the teams that cover the repository, in its organisation only', () => {
    fc.assert(
      fc.property(fc.array(grant, { maxLength: 5 }), (grants: TeamGrant[]) => {
        const covering = grants.filter(
          (g) => g.orgId === 'org' && (g.includesAllRepositories || g.repoIds.has('r')),
        );
        const got = teamLevelOn(grants, { id: 'r', ownerId: 'org' });
        if (covering.length === 0) {
          expect(got).toBeUndefined();
          return;
        }
        for (const g of covering) expect(atLeast(got ?? 'none', g.permission)).toBe(true);
        expect(covering.some((g) => g.permission === got)).toBe(true);
      }),
    );
  });

  it('makes a member level the highest of read, the collaboration and the teams; a non-member gets no team level', () => {
    const facts = {
      viewer,
      isSiteAdmin: false,
      actionOwner: false,
    };
    fc.assert(
      fc.property(
        fc.record({
          isPrivate: fc.boolean(),
          member: fc.boolean(),
          collaborator: fc.option(permission, { nil: undefined }),
          teamLevel: fc.option(permission, { nil: undefined }),
        }),
        (c) => {
          const got = accessLevel(repo(c.isPrivate), {
            ...facts,
            orgRole: c.member ? 'member' : undefined,
            collaborator: c.collaborator,
            teamLevel: c.teamLevel,
          });
          const anyone = c.isPrivate ? undefined : 'read';
          const expected = c.member
            ? higherLevel(higherLevel(c.collaborator, c.teamLevel), 'read')
            : (c.collaborator ?? anyone ?? 'none');
          expect(got).toBe(expected);
        },
      ),
    );
  });

  it('keeps a team level under an action owner at read', () => {
    const got = accessLevel(repo(true), {
      viewer,
      isSiteAdmin: false,
      orgRole: 'member',
      collaborator: undefined,
      teamLevel: 'admin',
      actionOwner: true,
    });
    expect(got).toBe('read');
  });

  it('accepts read, write and admin and Gitea team names, and refuses the rest', () => {
    expect(parseTeamPermission('write')).toBe('write');
    expect(() => parseTeamPermission('owner')).toThrow(/permission/);
    expect(checkedTeamName(' dev.ops_1 ')).toBe('dev.ops_1');
    for (const bad of ['', 'a b', 'x/y', 'owners', 'OWNERS', 'a'.repeat(256)]) {
      expect(() => checkedTeamName(bad)).toThrow();
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (name) => {
        try {
          expect(checkedTeamName(name)).toMatch(/^[A-Za-z0-9_.-]{1,255}$/);
        } catch (error) {
          expect((error as Error).name).not.toBe('TypeError');
        }
      }),
    );
  });
});
