/**
 * An organisation always keeps an owner: generated sequences of membership changes (add, change
 * role, remove, by any of a few people, through OrgService on the real database) never leave
 * one without an owner, and a change is refused exactly when it would have: the model below
 * replays each sequence and must agree with the database on every step.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OrgRole } from '../../src/domain/orgs/org.service.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';

const PEOPLE = ['p0', 'p1', 'p2'] as const;
let kiln: TestServer;
let users: User[];

useWorld({ people: [...PEOPLE] }, (world) => {
  kiln = world.kiln;
  users = PEOPLE.map((key) => world.people[key].user);
});

type Step = {
  readonly actor: number;
  readonly target: number;
  readonly op: 'add' | 'role' | 'remove';
  readonly role: OrgRole;
};

/** What the rules say a step does to `members`, or 'refused'. */
function model(members: Map<number, OrgRole>, step: Step): 'done' | 'refused' {
  if (members.get(step.actor) !== 'owner') return 'refused';
  const current = members.get(step.target);
  if (step.op === 'add') {
    if (current !== undefined) return 'refused';
    members.set(step.target, step.role);
    return 'done';
  }
  if (current === undefined) return 'refused';
  const next = new Map(members);
  if (step.op === 'remove') next.delete(step.target);
  else next.set(step.target, step.role);
  if (![...next.values()].includes('owner')) return 'refused';
  members.clear();
  for (const [key, value] of next) members.set(key, value);
  return 'done';
}

let serial = 0;

describe('organisation owners', () => {
  it('are never all removed or demoted, whatever the order of changes', async () => {
    const index = fc.integer({ min: 0, max: PEOPLE.length - 1 });
    const step = fc.record({
      actor: index,
      target: index,
      op: fc.constantFrom('add' as const, 'role' as const, 'remove' as const),
      role: fc.constantFrom('owner' as const, 'member' as const),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 10 }), async (steps: Step[]) => {
        const { orgs } = kiln.app.services;
        const founder = users[0] as User;
        const org = await orgs.createOrg({ name: `prop${serial++}`, owner: founder });
        const members = new Map<number, OrgRole>([[0, 'owner']]);
        for (const s of steps) {
          const actor = users[s.actor] as User;
          const target = (users[s.target] as User).handle;
          const expected = model(members, s);
          const run =
            s.op === 'add'
              ? orgs.addMemberByHandle(actor, org.handle, target, s.role)
              : s.op === 'role'
                ? orgs.setRole(actor, org.handle, target, s.role)
                : orgs.removeMember(actor, org.handle, target);
          const outcome = await run.then(
            () => 'done',
            () => 'refused',
          );
          expect(outcome).toBe(expected);
          const rows = await orgs.listMembers(org);
          expect(rows.some((row) => row.role === 'owner')).toBe(true);
          expect(rows.length).toBe(members.size);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
