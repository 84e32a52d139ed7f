import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventBus } from './events.ts';
import type { Repository } from './repos/repo.types.ts';
import type { Account } from './users/user.types.ts';

const repo = { id: 'r1', name: 'app' } as Repository;
const org = { id: 'o1', handle: 'acme' } as Account;

describe('EventBus', () => {
  it('hands an event to its subscribers in the order they subscribed, and no one else', async () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.subscribe('repo.created', async (created) => void seen.push(`first ${created.name}`));
    bus.subscribe('org.deleted', async () => void seen.push('another event'));
    bus.subscribe('repo.created', async (created) => void seen.push(`second ${created.id}`));
    await bus.publish('repo.created', repo);
    expect(seen).toEqual(['first app', 'second r1']);
  });

  it('waits for each subscriber before the next, and resolves once all have run', async () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.subscribe('org.deleted', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push('slow');
    });
    bus.subscribe('org.deleted', async () => void seen.push('fast'));
    await bus.publish('org.deleted', org);
    expect(seen).toEqual(['slow', 'fast']);
  });

  it('stops handing events to a subscriber once it unsubscribes, even mid-publication', async () => {
    const bus = new EventBus();
    const seen: string[] = [];
    const second = async () => void seen.push('second');
    let removeSecond = () => {};
    const removeFirst = bus.subscribe('org.deleted', async () => {
      seen.push('first');
      removeSecond();
    });
    removeSecond = bus.subscribe('org.deleted', second);
    await bus.publish('org.deleted', org);
    removeFirst();
    removeFirst();
    await bus.publish('org.deleted', org);
    expect(seen).toEqual(['first', 'second']);
  });

  it('reports a failing subscriber with its event and still runs the ones after it', async () => {
    const reported: Array<[string, unknown]> = [];
    const bus = new EventBus((error, name) => void reported.push([name, error]));
    const failure = new Error('no follower today');
    let later = false;
    bus.subscribe('repo.created', async () => {
      throw failure;
    });
    bus.subscribe('repo.created', async () => {
      later = true;
    });
    await expect(bus.publish('repo.created', repo)).resolves.toBeUndefined();
    expect(later).toBe(true);
    expect(reported).toEqual([['repo.created', failure]]);
  });

  it("hands failures to the publisher's own report when it gives one", async () => {
    const toBus: unknown[] = [];
    const bus = new EventBus((error) => void toBus.push(error));
    bus.subscribe('org.deleted', async () => {
      throw new Error('one');
    });
    const toPublisher: unknown[] = [];
    await bus.publish('org.deleted', org, (error) => void toPublisher.push(error));
    expect(toPublisher).toEqual([new Error('one')]);
    expect(toBus).toEqual([]);
  });

  it('runs every subscriber once and reports exactly the failures, whichever fail', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { maxLength: 12 }), async (failing) => {
        const reported: unknown[] = [];
        const bus = new EventBus((error) => void reported.push(error));
        const ran: number[] = [];
        failing.forEach((fails, at) => {
          bus.subscribe('webhook.queued', async () => {
            ran.push(at);
            if (fails) throw at;
          });
        });
        await bus.publish('webhook.queued', { deliveries: 1 });
        expect(ran).toEqual(failing.map((_, at) => at));
        expect(reported).toEqual(failing.flatMap((fails, at) => (fails ? [at] : [])));
      }),
    );
  });
});
