import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTIONS_BOT_ID, actionsBotFor } from '../users/actions-bot.ts';
import type { Account, User } from '../users/user.types.ts';
import {
  accessLevel,
  mayAdministerOrg,
  mayAdministerRepo,
  mayCreateRepos,
  mayPush,
  mayWrite,
  ownerVisible,
  visibleToAnyone,
} from './repo.policy.ts';
import { ACCESS_LEVELS, type RepoAccess, type Repository } from './repo.types.ts';

const at = new Date(0);
const person = (id: string): User => ({
  id,
  handle: id,
  kind: 'user',
  email: `${id}@example.test`,
  fullName: '',
  description: '',
  createdAt: at,
  updatedAt: at,
});
const owner: Account = person('owner');
const repo = (isPrivate: boolean): Repository => ({
  id: 'r',
  owner,
  name: 'r',
  description: '',
  private: isPrivate,
  parentId: null,
  createdAt: at,
  updatedAt: at,
});
const none = {
  isSiteAdmin: false,
  orgRole: undefined,
  collaborator: undefined,
  teamLevel: undefined,
  actionOwner: false,
} as const;
const levels = ACCESS_LEVELS.filter((level) => level !== 'none');
const collaborators = fc.constantFrom(
  undefined,
  'read' as const,
  'write' as const,
  'admin' as const,
);
const access = (level: RepoAccess['level']): RepoAccess => ({ level });

describe('repository policy', () => {
  it('gives the owner and site admins admin, collaborators their level, others read or nothing', () => {
    const stranger = person('stranger');
    expect(accessLevel(repo(true), { ...none, viewer: person('owner') })).toBe('admin');
    expect(accessLevel(repo(true), { ...none, viewer: stranger, isSiteAdmin: true })).toBe('admin');
    expect(accessLevel(repo(true), { ...none, viewer: stranger, collaborator: 'write' })).toBe(
      'write',
    );
    expect(accessLevel(repo(true), { ...none, viewer: stranger, orgRole: 'member' })).toBe('read');
    expect(accessLevel(repo(true), { ...none, viewer: stranger })).toBe('none');
    expect(accessLevel(repo(false), { ...none, viewer: undefined })).toBe('read');
  });

  it('hides every repository of a private organisation from non-members, public ones too', () => {
    const org: Account = { ...person('org'), kind: 'org', email: null, private: true };
    const inOrg = (isPrivate: boolean): Repository => ({ ...repo(isPrivate), owner: org });
    const stranger = person('stranger');
    for (const isPrivate of [false, true]) {
      expect(accessLevel(inOrg(isPrivate), { ...none, viewer: undefined })).toBe('none');
      expect(accessLevel(inOrg(isPrivate), { ...none, viewer: stranger })).toBe('none');
      expect(accessLevel(inOrg(isPrivate), { ...none, viewer: stranger, orgRole: 'member' })).toBe(
        'read',
      );
      expect(accessLevel(inOrg(isPrivate), { ...none, viewer: stranger, isSiteAdmin: true })).toBe(
        'admin',
      );
      expect(visibleToAnyone(inOrg(isPrivate))).toBe(false);
    }
    expect(ownerVisible(org, { ...none, viewer: undefined })).toBe(false);
    expect(ownerVisible(org, { ...none, viewer: stranger, orgRole: 'member' })).toBe(true);
    expect(ownerVisible(owner, { ...none, viewer: undefined })).toBe(true);
    expect(visibleToAnyone(repo(false))).toBe(true);
  });

  it('lets writers and administrators push, and only administrators administer', () => {
    expect(levels.map((level) => mayPush(access(level)))).toEqual([false, true, true]);
    expect(levels.map((level) => mayWrite(access(level)))).toEqual([false, true, true]);
    expect(levels.map((level) => mayAdministerRepo(access(level)))).toEqual([false, false, true]);
  });

  it('lets organisation owners and site admins administer an organisation, not members', () => {
    expect(mayAdministerOrg('owner', false, false)).toBe(true);
    expect(mayAdministerOrg('member', false, false)).toBe(false);
    expect(mayAdministerOrg(undefined, false, false)).toBe(false);
    expect(mayAdministerOrg(undefined, true, false)).toBe(true);
  });

  it('gives the actions bot its grant on its repository and what anyone has elsewhere', () => {
    fc.assert(
      fc.property(
        fc.record({
          repoId: fc.constantFrom('r', 'other'),
          level: fc.constantFrom('read' as const, 'write' as const),
          isPrivate: fc.boolean(),
          isSiteAdmin: fc.boolean(),
          orgRole: fc.constantFrom(undefined, 'member' as const, 'owner' as const),
          collaborator: collaborators,
          teamLevel: collaborators,
        }),
        (c) => {
          const bot = actionsBotFor({ taskId: 1, repoId: c.repoId, level: c.level });
          const got = accessLevel(repo(c.isPrivate), { ...c, viewer: bot, actionOwner: false });
          const elsewhere = c.isPrivate ? 'none' : 'read';
          expect(got).toBe(c.repoId === 'r' ? c.level : elsewhere);
        },
      ),
    );
    // The bot's account reached without a task (however) has no access of its own.
    const bare = { ...person(ACTIONS_BOT_ID) };
    expect(accessLevel(repo(true), { ...none, viewer: bare, isSiteAdmin: true })).toBe('none');
    expect(mayCreateRepos(actionsBotFor({ taskId: 1, repoId: 'r', level: 'write' }))).toBe(false);
    expect(mayCreateRepos(person('someone'))).toBe(true);
  });

  it('lets only site admins write under an action owner, whatever else the viewer is', () => {
    const actionsOrg: Account = { ...person('actions'), kind: 'org', email: null };
    fc.assert(
      fc.property(
        fc.record({
          isPrivate: fc.boolean(),
          isSiteAdmin: fc.boolean(),
          ownsIt: fc.boolean(),
          orgRole: fc.constantFrom(undefined, 'member' as const, 'owner' as const),
          collaborator: collaborators,
          teamLevel: collaborators,
          bot: fc.constantFrom(undefined, 'read' as const, 'write' as const),
        }),
        (c) => {
          const target = { ...repo(c.isPrivate), owner: c.ownsIt ? owner : actionsOrg };
          const viewer = c.bot
            ? actionsBotFor({ taskId: 1, repoId: 'r', level: c.bot })
            : person(c.ownsIt ? 'owner' : 'someone');
          const facts = { ...c, viewer, actionOwner: false };
          const uncapped = accessLevel(target, facts);
          const capped = accessLevel(target, { ...facts, actionOwner: true });
          const admin = c.isSiteAdmin && !c.bot;
          expect(capped).toBe(
            admin || uncapped === 'none' || uncapped === 'read' ? uncapped : 'read',
          );
          expect(mayAdministerOrg(c.orgRole, admin, true)).toBe(admin);
        },
      ),
    );
  });
});
