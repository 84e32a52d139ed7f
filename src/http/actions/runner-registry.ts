/**
 * What the runner protocol edge needs from the domain. The edge speaks protobuf on one side and this
 * interface on the other: plain camelCase inputs and records, no wire types. The implementation
 * lives in the domain (runners) and reports failures with the errors of `domain/errors.ts`;
 * `connect-errors.ts` turns them into Connect codes.
 */

import type { DeclareInput, RegisterInput } from '../../domain/runners/runner-registry.service.ts';

/** Runner status as the domain sees it; `unspecified` when it does not say. */
export type RunnerStatusName = 'unspecified' | 'idle' | 'active' | 'offline';

/** A registered runner, as the edge needs to describe it to the runner itself. */
export interface RunnerRecord {
  /** Internal key (a UUID); the wire `id` is its one-way fold. */
  readonly id: string;
  /** The runner's public identifier, sent back by the runner as `x-runner-uuid`. */
  readonly uuid: string;
  readonly name: string;
  readonly version: string;
  /** Label names (`ubuntu-latest`), without any `:docker://…` schema part. */
  readonly labels: readonly string[];
  readonly ephemeral: boolean;
  readonly status: RunnerStatusName;
}

/**
 * What a runner sends to register; the edge has already taken the labels from the deprecated
 * `agent_labels` when `labels` was empty.
 */
export type RegisterRunnerInput = RegisterInput;

export interface RegisteredRunner {
  readonly runner: RunnerRecord;
  /** The new per-runner secret in plain text; shown this once and never again. */
  readonly token: string;
}

/** What a starting runner declares; its credentials are checked by `declare` itself. */
export type DeclareRunnerInput = DeclareInput;

export interface RunnerRegistry {
  /**
   * Creates a runner from a registration token.
   * Throws `Unauthenticated` when the token is unknown or deleted, `Invalid` for a bad name or
   * other input (its message is shown to the operator).
   */
  register(input: RegisterRunnerInput): Promise<RegisteredRunner>;

  /**
   * Records the version, labels and capabilities a starting runner declares and returns the
   * updated runner, also counting as a sighting (last-seen time). The edge does not call
   * `authenticate` first: this method checks the credentials itself, in the same write. Throws
   * `Unauthenticated` (or `NotFound`, treated the same) when the runner is gone or the token does
   * not match, and `Invalid` for input no runner sends.
   */
  declare(input: DeclareRunnerInput): Promise<RunnerRecord>;

  /**
   * Checks the runner headers of an authenticated call (every RunnerService method but Register)
   * and refreshes the runner's last-seen time. Throws `Unauthenticated` (or `NotFound`, treated
   * the same) for an unknown uuid, a deleted runner or a wrong token.
   */
  authenticate(uuid: string, token: string): Promise<RunnerRecord>;
}
