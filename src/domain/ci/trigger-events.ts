import type { RefChange } from '../../git/refs.ts';
import { pullHeadRef } from '../pulls/pull.types.ts';
import type { Push } from '../repos/push-events.ts';
import { githubContext, pullPayload, pushPayload } from './event-payloads.ts';
import type { PullTrigger } from './pull-trigger.ts';
import { matchesPull, matchesPush, type Triggers } from './workflow/triggers.ts';
import type { NewRun } from './workflow-run.store.ts';

/** A triggering event as its runs record it (each workflow file adds its own file and name). */
export type Triggered = {
  readonly run: Omit<NewRun, 'workflowName' | 'workflowFile'>;
  /** `${{ github }}` while jobs are planned. */
  readonly github: Record<string, unknown>;
  /** Whether a workflow's `on:` takes this event. */
  readonly matches: (triggers: Triggers) => boolean;
};

/** A ref a push created or moved to `sha`; `title` is the tip's subject line. Pure. */
export function pushTriggered(
  push: Push,
  change: RefChange,
  sha: string,
  title: string,
  changed: readonly string[],
): Triggered {
  const payload = pushPayload(push, change, sha, title);
  return {
    run: {
      repoId: push.repo.id,
      event: 'push',
      ref: change.ref,
      sha,
      triggeredBy: push.pusher.id,
      title,
      eventPayload: payload,
      actor: push.pusher.handle,
    },
    github: githubContext(push.repo, change.ref, sha, push.pusher.handle, payload),
    matches: (triggers) => matchesPush(triggers, { ref: change.ref, changedPaths: changed }),
  };
}

/**
 * A pull request event, run on `refs/pull/N/head` at the head commit; the pull's title names the
 * run, else the head commit's subject. A pull from a fork is marked so (no secrets). Pure.
 */
export function pullTriggered(
  event: PullTrigger,
  title: string,
  changed: readonly string[],
): Triggered {
  const { pull } = event;
  const ref = pullHeadRef(pull.number);
  const payload = pullPayload(event);
  return {
    run: {
      repoId: event.base.id,
      event: 'pull_request',
      ref,
      sha: pull.headSha,
      triggeredBy: event.actor.id,
      title: pull.title || title,
      eventPayload: payload,
      actor: event.actor.handle,
      headRef: pull.headBranch,
      baseRef: pull.baseBranch,
      forkPull: event.head.id !== event.base.id,
      pullId: pull.id,
    },
    github: {
      ...githubContext(event.base, ref, pull.headSha, event.actor.handle, payload),
      event_name: 'pull_request',
      head_ref: pull.headBranch,
      base_ref: pull.baseBranch,
    },
    matches: (triggers) =>
      matchesPull(triggers, {
        action: event.type,
        baseBranch: pull.baseBranch,
        changedPaths: changed,
      }),
  };
}
