/**
 * Runners and their registration tokens as the domain sees them: camelCase, Dates, no wire
 * shapes. The protocol edge reads `RunnerRecord`-shaped values off `Runner` structurally.
 */

/** Where a token lets runners register, and so which jobs those runners may take. */
export type RunnerScope =
  | { readonly kind: 'instance' }
  | { readonly kind: 'repository'; readonly repoId: string }
  | { readonly kind: 'organisation'; readonly orgId: string };

export const INSTANCE_SCOPE: RunnerScope = Object.freeze({ kind: 'instance' });

/**
 * Status as shown and as sent in `runner.v1.Runner.status`. `unspecified` is never stored; it is
 * in the union because the protocol has it.
 */
export type RunnerStatus = 'unspecified' | 'idle' | 'active' | 'offline';

export type Runner = {
  /** Internal key; the wire `id` is its fold. */
  readonly id: string;
  /** What the runner sends as `x-runner-uuid`. */
  readonly uuid: string;
  readonly name: string;
  readonly version: string;
  readonly labels: readonly string[];
  readonly capabilities: readonly string[];
  readonly ephemeral: boolean;
  /** Effective status at read time (see runner-status.ts). */
  readonly status: RunnerStatus;
  readonly scope: RunnerScope;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
};

export type RegistrationToken = {
  readonly id: string;
  readonly scope: RunnerScope;
  /** Null when made from the command line or when the person is gone. */
  readonly createdBy: string | null;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
};

/** How a scope reads on a page: `owner/name` of a repository, the handle of an organisation. */
export type ScopeLabel = { readonly scope: RunnerScope; readonly label: string };

/** A runner for a listing page, with its scope named. */
/** The job a runner is running now, as its pages link to it. */
export type RunnerTask = {
  readonly taskId: number;
  readonly jobName: string;
  readonly runNumber: number;
  readonly repoOwner: string;
  readonly repoName: string;
};

export type ListedRunner = Runner & {
  readonly scopeLabel: string;
  /** The task it holds now (the newest, should there be several), or null when it has none. */
  readonly currentTask: RunnerTask | null;
};

/** A token for a listing page, with its scope and creator named. */
export type ListedRegistrationToken = RegistrationToken & {
  readonly scopeLabel: string;
  readonly creatorHandle: string | null;
};
