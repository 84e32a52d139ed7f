import { describe, expect, it } from 'vitest';
import type { User } from '../users/user.types.ts';
import { type Push, PushEvents } from './push-events.ts';
import type { Repository } from './repo.types.ts';

const push = (changes: Push['changes']): Push => ({
  repo: { name: 'r' } as Repository,
  pusher: { handle: 'p' } as User,
  changes,
});
const moved = [{ ref: 'refs/heads/main', oldSha: null, newSha: 'a'.repeat(40) }];

describe('PushEvents', () => {
  it('hands a push to every listener, in the order they subscribed', async () => {
    const events = new PushEvents();
    const seen: string[] = [];
    events.subscribe(async (p) => void seen.push(`first ${p.changes.length}`));
    events.subscribe(async (p) => void seen.push(`second ${p.repo.name}`));
    await events.publish(push(moved));
    expect(seen).toEqual(['first 1', 'second r']);
  });

  it('stops handing pushes to a listener once it unsubscribes', async () => {
    const events = new PushEvents();
    let calls = 0;
    const unsubscribe = events.subscribe(async () => void calls++);
    await events.publish(push(moved));
    unsubscribe();
    unsubscribe();
    await events.publish(push(moved));
    expect(calls).toBe(1);
  });

  it('announces nothing for a push that moved no ref', async () => {
    const events = new PushEvents();
    let calls = 0;
    events.subscribe(async () => void calls++);
    await events.publish(push([]));
    expect(calls).toBe(0);
  });

  it('runs the listeners after a failing one, then rejects with its error', async () => {
    const events = new PushEvents();
    const failure = new Error('pull refs could not move');
    let later = false;
    events.subscribe(async () => {
      throw failure;
    });
    events.subscribe(async () => {
      later = true;
    });
    await expect(events.publish(push(moved))).rejects.toBe(failure);
    expect(later).toBe(true);
  });

  it('rejects with every error when several listeners fail', async () => {
    const events = new PushEvents();
    events.subscribe(async () => {
      throw new Error('one');
    });
    events.subscribe(async () => {
      throw new Error('two');
    });
    const error = await events.publish(push(moved)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((e: Error) => e.message)).toEqual(['one', 'two']);
  });
});
