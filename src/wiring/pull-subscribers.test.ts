import { describe, expect, it } from 'vitest';
import type { PullTrigger } from '../domain/ci/pull-trigger.ts';
import { EventBus } from '../domain/events.ts';
import type { Pull } from '../domain/pulls/pull.types.ts';
import type { PullAction, PullEvent } from '../domain/pulls/pull-events.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { User } from '../domain/users/user.types.ts';
import { pullHookOf } from '../notify/webhook-notifier.ts';
import { subscribeCi } from './ci.ts';

const base = { id: 'base', name: 'app' } as Repository;
const fork = { id: 'fork', name: 'app' } as Repository;
const actor = { id: 'u1', handle: 'ada' } as User;
const pull = { number: 7, state: 'closed', merged: true } as Pull;

function event(action: PullAction, head: Repository | null = fork, merged = false): PullEvent {
  return { action, context: { base, head, pull }, actor, merged };
}

/** The two kinds of subscriber, as the composition root wires them: CI first, then webhooks. */
function subscribed() {
  const errors: unknown[] = [];
  const events = new EventBus((error) => void errors.push(error));
  const ci: PullTrigger[] = [];
  const hooks: Array<ReturnType<typeof pullHookOf>> = [];
  const order: string[] = [];
  subscribeCi(events, {
    onPush: async () => [],
    onPull: async (trigger) => {
      ci.push(trigger);
      order.push('ci');
      return [];
    },
  });
  events.subscribe('pull', async (announced) => {
    hooks.push(pullHookOf(announced));
    order.push('webhooks');
  });
  return { events, ci, hooks, order, errors };
}

describe('one pull request change', () => {
  it('reaches CI and webhooks once each, CI first, each in its own words', async () => {
    const { events, ci, hooks, order } = subscribed();
    await events.publish('pull', event('closed', fork, true));
    expect(order).toEqual(['ci', 'webhooks']);
    expect(ci).toEqual([{ type: 'closed', base, head: fork, pull, actor }]);
    expect(hooks).toEqual([{ action: 'closed', type: 'pull_request' }]);
  });

  it('maps every action to GitHub types and Gitea actions', async () => {
    const { events, ci, hooks } = subscribed();
    for (const action of ['opened', 'synchronized', 'edited', 'closed', 'reopened'] as const) {
      await events.publish('pull', event(action));
    }
    expect(ci.map((trigger) => trigger.type)).toEqual([
      'opened',
      'synchronize',
      'closed',
      'reopened',
    ]);
    expect(hooks).toEqual([
      { action: 'opened', type: 'pull_request' },
      { action: 'synchronized', type: 'pull_request_sync' },
      { action: 'edited', type: 'pull_request' },
      { action: 'closed', type: 'pull_request' },
      { action: 'reopened', type: 'pull_request' },
    ]);
  });

  it('starts no run for a pull whose head is gone, yet still tells webhooks', async () => {
    const { events, ci, hooks } = subscribed();
    await events.publish('pull', event('closed', null));
    expect(ci).toEqual([]);
    expect(hooks).toHaveLength(1);
  });

  it('keeps a failing subscriber from stopping the next one or failing the change', async () => {
    const errors: unknown[] = [];
    const events = new EventBus((error) => void errors.push(error));
    const failure = new Error('no runner today');
    subscribeCi(events, {
      onPush: async () => [],
      onPull: async () => {
        throw failure;
      },
    });
    let heard = 0;
    events.subscribe('pull', async () => void heard++);
    await expect(events.publish('pull', event('opened'))).resolves.toBeUndefined();
    expect(heard).toBe(1);
    expect(errors).toEqual([failure]);
  });
});
