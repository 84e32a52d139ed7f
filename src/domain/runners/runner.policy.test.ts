import { describe, expect, it } from 'vitest';
import type { User } from '../users/user.types.ts';
import { mayManageRunners, OPERATOR, type RunnerActor } from './runner.policy.ts';
import type { RunnerScope } from './runner.types.ts';

const person: RunnerActor = { kind: 'user', user: { handle: 'ada' } as User };
const instance: RunnerScope = { kind: 'instance' };
const repository: RunnerScope = { kind: 'repository', repoId: 'r' };
const organisation: RunnerScope = { kind: 'organisation', orgId: 'o' };

describe('mayManageRunners', () => {
  it('lets the operator and admins manage every scope, all at once included', () => {
    for (const scope of [instance, repository, organisation, undefined]) {
      expect(mayManageRunners(OPERATOR, false, scope, {})).toBe(true);
      expect(mayManageRunners(person, true, scope, {})).toBe(true);
    }
  });

  it('keeps instance runners and the all-scopes view from everyone else', () => {
    expect(mayManageRunners(person, false, instance, { isRepoAdmin: true })).toBe(false);
    expect(mayManageRunners(person, false, undefined, { isRepoAdmin: true })).toBe(false);
  });

  it('gives a repository to its admins and an organisation to its owners', () => {
    expect(mayManageRunners(person, false, repository, { isRepoAdmin: true })).toBe(true);
    expect(mayManageRunners(person, false, repository, { isOrgOwner: true })).toBe(false);
    expect(mayManageRunners(person, false, organisation, { isOrgOwner: true })).toBe(true);
    expect(mayManageRunners(person, false, organisation, { isRepoAdmin: true })).toBe(false);
  });
});
