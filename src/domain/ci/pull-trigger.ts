import type { Pull } from '../pulls/pull.types.ts';
import type { PullAction, PullEvent } from '../pulls/pull-events.ts';
import type { Repository } from '../repos/repo.types.ts';
import { isActionsBot } from '../users/actions-bot.ts';
import type { User } from '../users/user.types.ts';

/** The activity types a workflow names in `on: pull_request: types` that Kiln starts runs for. */
export type PullTriggerType = 'opened' | 'synchronize' | 'reopened' | 'closed';

/** A pull request change as workflows (`on: pull_request`) see it. */
export type PullTrigger = {
  readonly type: PullTriggerType;
  readonly base: Repository;
  /** The repository the head branch lives in (the base itself, or a fork). */
  readonly head: Repository;
  readonly pull: Pull;
  /** Whose action it was; their access decides whether a run from a fork waits (fork-approval.ts). */
  readonly actor: User;
};

/**
 * Kiln's actions in GitHub's words. An edit of the title or body starts no run: only its text
 * changed, and workflows are read at the head commit, which did not move.
 */
const TRIGGER_TYPES: Readonly<Record<PullAction, PullTriggerType | undefined>> = {
  opened: 'opened',
  synchronized: 'synchronize',
  reopened: 'reopened',
  closed: 'closed',
  edited: undefined,
};

/**
 * What a pull request change means to workflows, or undefined when it starts nothing: an edit,
 * a change to a pull whose head repository is gone or hidden (no workflow could be read from
 * it), or one made with a task token (the actions bot: no workflow triggers another, as in
 * Gitea). A merge is `closed`, its pull marked merged. Pure.
 */
export function pullTriggerOf(event: PullEvent): PullTrigger | undefined {
  const type = TRIGGER_TYPES[event.action];
  const { base, head, pull } = event.context;
  if (type === undefined || head === null || isActionsBot(event.actor)) return undefined;
  return { type, base, head, pull, actor: event.actor };
}
