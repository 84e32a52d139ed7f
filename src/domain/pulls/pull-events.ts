import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { Pull } from './pull.types.ts';

/**
 * What happened to a pull request, in Kiln's own words. Each subscriber maps it to its own
 * vocabulary: CI to GitHub's `on: pull_request: types`, webhooks to Gitea's actions.
 */
export type PullAction = 'opened' | 'synchronized' | 'edited' | 'closed' | 'reopened';

/**
 * One change to a pull request, announced once to every subscriber. The repositories carry no
 * reader's access: the change happened whoever may read it later.
 */
export type PullEvent = {
  readonly action: PullAction;
  /**
   * The pull as it is after the change, with the repositories it joins. The head is null once
   * the head repository is gone or hidden from the base's readers (see `headFeedsBase`).
   */
  readonly context: {
    readonly base: Repository;
    readonly head: Repository | null;
    readonly pull: Pull;
  };
  /** Who caused it: the author on open, the pusher on synchronize, the editor or merger else. */
  readonly actor: User;
  /** True only on the `closed` that a merge causes. */
  readonly merged: boolean;
  /** On `synchronized`: the head before the push. */
  readonly previousHeadSha?: string;
};
