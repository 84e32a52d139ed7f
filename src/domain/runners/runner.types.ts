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
export type ListedRunner = Runner & { readonly scopeLabel: string };

/** A token for a listing page, with its scope and creator named. */
export type ListedRegistrationToken = RegistrationToken & {
  readonly scopeLabel: string;
  readonly creatorHandle: string | null;
};
