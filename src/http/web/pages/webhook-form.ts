import { Invalid, NotFound } from '../../../domain/errors.ts';
import {
  HOOK_EVENTS,
  HOOK_TYPES,
  type HookEvent,
  type HookInput,
  type HookType,
} from '../../../domain/webhooks/webhook.types.ts';
import { isOneOf } from '../../../lib/narrow.ts';
import { field, fieldValues } from '../forms.ts';

/** Which events a hook form asks for, by the names Gitea's form uses. */
export type EventChoice = 'push_only' | 'send_everything' | 'choose_events';

/** The events a choice stands for; `chosen` only counts for `choose_events`. */
export function eventsOf(choice: EventChoice, chosen: readonly HookEvent[]): HookEvent[] {
  if (choice === 'push_only') return ['push'];
  if (choice === 'send_everything') return [...HOOK_EVENTS];
  return [...chosen];
}

/** How a hook's events show in its form: the shortest choice that gives them back. */
export function choiceOf(events: readonly HookEvent[]): EventChoice {
  if (events.length === 1 && events[0] === 'push') return 'push_only';
  if (HOOK_EVENTS.every((event) => events.includes(event))) return 'send_everything';
  return 'choose_events';
}

/**
 * A hook's form as domain input. The type is read only when creating (a hook keeps its type, as
 * in Gitea). The secret is write-only: when editing, a blank field keeps the stored one.
 */
export function hookInputOf(body: unknown, mode: 'create' | 'edit'): HookInput {
  const contentType = field(body, 'content_type', 10) || 'json';
  if (contentType !== 'json' && contentType !== 'form') {
    throw new Invalid(`invalid content type: ${contentType}`);
  }
  const choice = field(body, 'events', 20) || 'push_only';
  if (choice !== 'push_only' && choice !== 'send_everything' && choice !== 'choose_events') {
    throw new Invalid(`invalid event choice: ${choice}`);
  }
  const chosen = fieldValues(body, 'event', 100);
  const known = chosen.filter((event) => isOneOf(HOOK_EVENTS, event));
  const unknown = chosen.find((event) => !isOneOf(HOOK_EVENTS, event));
  if (unknown !== undefined) throw new Invalid(`unknown hook event: ${unknown}`);
  const events = eventsOf(choice, known);
  if (events.length === 0) throw new Invalid('choose at least one event');
  const secret = field(body, 'secret', 1000);
  return {
    ...(mode === 'create' ? { type: typeOf(field(body, 'type', 20) || 'gitea') } : {}),
    url: field(body, 'url', 2000).trim(),
    contentType,
    ...(mode === 'create' || secret !== '' ? { secret } : {}),
    events,
    branchFilter: field(body, 'branch_filter', 1000).trim() || '*',
    active: field(body, 'active', 10) === 'on',
  };
}

function typeOf(type: string): HookType {
  if (!isOneOf(HOOK_TYPES, type)) throw new Invalid(`invalid hook type: ${type}`);
  return type;
}

/** A hook's number from the path; anything else names no hook. */
export function hookIdOf(text: string): number {
  const id = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new NotFound(`hook does not exist [id: ${text}]`);
  return id;
}
