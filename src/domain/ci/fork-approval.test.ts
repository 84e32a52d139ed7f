import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCESS_LEVELS } from '../repos/repo.types.ts';
import { ACTIONS_BOT_HANDLE, ACTIONS_BOT_ID } from '../users/actions-bot.ts';
import type { User } from '../users/user.types.ts';
import { awaitsApproval, mustAskApproval } from './fork-approval.ts';

const person = { id: 'u1', handle: 'ada' } as User;
const bot = { id: ACTIONS_BOT_ID, handle: ACTIONS_BOT_HANDLE } as User;

describe('mustAskApproval', () => {
  it('asks exactly for a fork run by someone below write who was not approved for the pull', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(...ACCESS_LEVELS),
        fc.boolean(),
        (fromFork, byBot, access, approvedBefore) => {
          const actor = byBot ? bot : person;
          const asks = mustAskApproval({ fromFork, actor, access, approvedBefore });
          const below = access === 'none' || access === 'read';
          expect(asks).toBe(fromFork && !byBot && below && !approvedBefore);
        },
      ),
    );
  });
});

describe('awaitsApproval', () => {
  it('holds from the run needing approval until it is approved', () => {
    expect(awaitsApproval({ needsApproval: false, approvedAt: null })).toBe(false);
    expect(awaitsApproval({ needsApproval: true, approvedAt: null })).toBe(true);
    expect(awaitsApproval({ needsApproval: true, approvedAt: new Date(1) })).toBe(false);
  });
});
