import { describe, expect, it } from 'vitest';
import { EventBus } from '../events.ts';
import type { User } from '../users/user.types.ts';
import { PushService } from './push.service.ts';
import type { Push } from './push-events.ts';
import type { Repository } from './repo.types.ts';

const push = (changes: Push['changes']): Push => ({
  repo: { name: 'r' } as Repository,
  pusher: { handle: 'p' } as User,
  changes,
});
const moved = [{ ref: 'refs/heads/main', oldSha: null, newSha: 'a'.repeat(40) }];

/** A push service over real events, whose record step writes into `seen` (or fails). */
function service(seen: string[], recordFails = false) {
  const events = new EventBus();
  const repos = {
    pushed: async (repo: Repository) => {
      if (recordFails) throw new Error('record failed');
      seen.push(`recorded ${repo.name}`);
    },
  };
  return { events, pushes: new PushService({ repos, events }) };
}

describe('PushService.afterPush', () => {
  it('records the push before any listener hears of it', async () => {
    const seen: string[] = [];
    const { events, pushes } = service(seen);
    events.subscribe('push', async () => void seen.push('listener'));
    const aftermath = pushes.afterPush(push(moved), () => seen.push('error'));
    await aftermath.recorded;
    await aftermath.reacted;
    expect(seen).toEqual(['recorded r', 'listener']);
  });

  it('still hands the push round when recording fails, and reports both failures', async () => {
    const seen: string[] = [];
    const { events, pushes } = service(seen, true);
    events.subscribe('push', async () => {
      throw new Error('listener failed');
    });
    events.subscribe('push', async () => void seen.push('second listener'));
    const errors: string[] = [];
    const aftermath = pushes.afterPush(push(moved), (error) => errors.push(String(error)));
    await expect(aftermath.recorded).resolves.toBeUndefined();
    await expect(aftermath.reacted).resolves.toBeUndefined();
    expect(seen).toEqual(['second listener']);
    expect(errors).toEqual(['Error: record failed', 'Error: listener failed']);
  });

  it('does nothing for a push that moved no ref', async () => {
    const seen: string[] = [];
    const { events, pushes } = service(seen);
    events.subscribe('push', async () => void seen.push('listener'));
    const aftermath = pushes.afterPush(push([]), () => seen.push('error'));
    await aftermath.reacted;
    expect(seen).toEqual([]);
  });

  it('settles only once every listener of every push handed over has run', async () => {
    const seen: string[] = [];
    const { events, pushes } = service(seen);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    events.subscribe('push', async () => {
      await held;
      seen.push('slow listener');
    });
    pushes.afterPush(push(moved), () => seen.push('error'));
    const settled = pushes.settle().then(() => seen.push('settled'));
    await pushes.afterPush(push(moved), () => seen.push('error')).recorded;
    release();
    await settled;
    expect(seen).toEqual(['recorded r', 'recorded r', 'slow listener', 'slow listener', 'settled']);
  });
});
