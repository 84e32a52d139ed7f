import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { RunnersTable } from '../../db/tables.ts';
import { randomHex, safeEqual, sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { Unauthenticated } from '../errors.ts';
import { RegistrationTokenStore } from './registration-token.store.ts';
import { type RunnerRow, RunnerStore, toRunner } from './runner.store.ts';
import type { Runner } from './runner.types.ts';
import { capabilityFlags, labelNames, runnerName, runnerVersion } from './runner-input.ts';
import { shouldRecordSeen } from './runner-status.ts';

/** 20 random bytes as 40 hex characters, the shape of Gitea's runner tokens. */
const RUNNER_SECRET_BYTES = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type RegisterInput = {
  readonly token: string;
  readonly name: string;
  readonly version: string;
  readonly labels: readonly string[];
  readonly ephemeral: boolean;
  readonly capabilities: readonly string[];
};

export type DeclareInput = {
  readonly uuid: string;
  readonly token: string;
  readonly version: string;
  readonly labels: readonly string[];
  readonly capabilities: readonly string[];
};

/**
 * The runner side of the protocol: registration with a token, declaration at start, and the
 * credential check of every later call. Registration tokens and runner secrets are looked up by
 * SHA-256 only; the plaintext secret exists once, in the return value of `register`. Both are
 * 160 random bits, so a fast hash is enough (no salt or stretching needed, unlike passwords).
 */
export class RunnerRegistryService {
  readonly #runners: RunnerStore;
  readonly #tokens: RegistrationTokenStore;

  constructor(db: Db) {
    this.#runners = new RunnerStore(db);
    this.#tokens = new RegistrationTokenStore(db);
  }

  /**
   * Creates a runner in the scope of the registration token and returns it with its new secret.
   * Throws `Unauthenticated` for an unknown or deleted token, `Invalid` for an empty name or
   * absurd labels.
   */
  async register(input: RegisterInput): Promise<{ runner: Runner; token: string }> {
    const found =
      input.token === '' ? undefined : await this.#tokens.findByHash(sha256Hex(input.token));
    if (found === undefined) throw new Unauthenticated('runner registration token not found');
    const now = Date.now();
    const secret = randomHex(RUNNER_SECRET_BYTES);
    const row: RunnersTable = {
      id: newId(),
      uuid: randomUUID(),
      token_hash: sha256Hex(secret),
      name: runnerName(input.name),
      labels: JSON.stringify(labelNames(input.labels)),
      version: runnerVersion(input.version),
      capabilities: JSON.stringify(capabilityFlags(input.capabilities)),
      status: 'idle',
      ephemeral: input.ephemeral,
      scope_kind: found.scope_kind,
      scope_repo_id: found.scope_repo_id,
      scope_org_id: found.scope_org_id,
      created_at: now,
      last_seen_at: now,
    };
    await this.#runners.insert(row);
    await this.#tokens.recordUse(found.id, now);
    return { runner: toRunner(row, now), token: secret };
  }

  /**
   * Records version, labels and capabilities of a starting runner and returns it. Throws
   * `Unauthenticated` when the runner is gone or the secret does not match.
   */
  async declare(input: DeclareInput): Promise<Runner> {
    const fields = {
      version: runnerVersion(input.version),
      labels: labelNames(input.labels),
      capabilities: capabilityFlags(input.capabilities),
    };
    if (!UUID.test(input.uuid) || input.token === '') throw unregistered();
    const now = Date.now();
    const row = await this.#runners.declare(input.uuid, sha256Hex(input.token), fields, now);
    if (row === undefined) throw unregistered();
    return toRunner(row, now);
  }

  /**
   * The runner holding these credentials, after refreshing its last-seen time (at most once per
   * `SEEN_RESOLUTION_MS`). Throws `Unauthenticated` for an unknown uuid, a deleted runner or a
   * wrong secret, without saying which.
   */
  async authenticate(uuid: string, token: string): Promise<Runner> {
    if (!UUID.test(uuid) || token === '') throw unregistered();
    const row = await this.#runners.findByUuid(uuid);
    // Hash even when there is no row, so an unknown uuid costs what a wrong secret costs.
    const presented = sha256Hex(token);
    if (row === undefined || !safeEqual(row.token_hash, presented)) throw unregistered();
    const now = Date.now();
    let current: RunnerRow = row;
    if (shouldRecordSeen(row.status, row.last_seen_at, now)) {
      await this.#runners.recordSeen(row.id, row.last_seen_at, now);
      current = {
        ...row,
        last_seen_at: now,
        status: row.status === 'offline' ? 'idle' : row.status,
      };
    }
    return toRunner(current, now);
  }
}

function unregistered(): Unauthenticated {
  return new Unauthenticated('unregistered runner');
}
