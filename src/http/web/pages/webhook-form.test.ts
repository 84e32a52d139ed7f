import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOOK_EVENTS, type HookEvent } from '../../../domain/webhooks/webhook.types.ts';
import { choiceOf, eventsOf, hookIdOf, hookInputOf } from './webhook-form.ts';

describe('the event choice of a hook form', () => {
  it('gives back the events it was drawn from', () => {
    fc.assert(
      fc.property(fc.subarray([...HOOK_EVENTS], { minLength: 1 }), (events: HookEvent[]) => {
        const shown = eventsOf(choiceOf(events), events);
        expect(new Set(shown)).toEqual(new Set(events));
      }),
    );
  });

  it('reads the three choices as Gitea names them', () => {
    const body = { url: 'https://x.example', events: 'push_only', event: 'release' };
    expect(hookInputOf(body, 'create').events).toEqual(['push']);
    expect(hookInputOf({ ...body, events: 'send_everything' }, 'create').events).toEqual([
      ...HOOK_EVENTS,
    ]);
    expect(hookInputOf({ ...body, events: 'choose_events' }, 'create').events).toEqual(['release']);
  });

  it('refuses unknown events, types, content types and an empty choice', () => {
    const body = { url: 'https://x.example', events: 'choose_events' };
    expect(() => hookInputOf(body, 'create')).toThrow('choose at least one event');
    expect(() => hookInputOf({ ...body, event: 'nope' }, 'create')).toThrow('unknown hook event');
    expect(() => hookInputOf({ url: 'https://x', type: 'irc' }, 'create')).toThrow('type');
    expect(() => hookInputOf({ url: 'https://x', content_type: 'xml' }, 'edit')).toThrow(
      'content type',
    );
  });
});

describe('the secret of a hook form', () => {
  it('is kept when an edit leaves it blank, and set when given', () => {
    expect(hookInputOf({ url: 'https://x', secret: '' }, 'edit')).not.toHaveProperty('secret');
    expect(hookInputOf({ url: 'https://x', secret: 'new' }, 'edit').secret).toBe('new');
    expect(hookInputOf({ url: 'https://x' }, 'create').secret).toBe('');
  });
});

describe('a hook number in a path', () => {
  it('is a positive integer, or no hook at all', () => {
    expect(hookIdOf('42')).toBe(42);
    for (const text of ['0', '-1', '1.5', 'x', '', '99999999999999999', ' 1']) {
      expect(() => hookIdOf(text)).toThrow('hook does not exist');
    }
  });
});
