import { randomUUID } from 'node:crypto';
import { type ChangeClock, NO_CHANGE_CLOCK } from '../../db/change-clock.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { randomHex, safeEqual, sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { StampedMemo } from '../../lib/stamped-memo.ts';
import { Unauthenticated } from '../errors.ts';
import type { RegistrationTokenStore } from './registration-token.store.ts';
import { type RunnerStore, type StoredRunner, toRunner } from './runner.store.ts';
import type { RegistrationToken, Runner } from './runner.types.ts';
import { capabilityFlags, labelNames, runnerName, runnerVersion } from './runner-input.ts';
import { shouldRecordSeen } from './runner-status.ts';

/** 20 random bytes as 40 hex characters, the shape of Gitea's runner tokens. */
const RUNNER_SECRET_BYTES = 20;
/**
 * A token's last_used_at is written at most this often: a fleet of runners registering with one
 * token at once would otherwise write the same row once per runner.
 */
const TOKEN_USE_RESOLUTION_MS = 5_000;
/** Runners whose rows are remembered between calls; a fleet larger than this reads some again. */
const REMEMBERED_RUNNERS = 10_000;
/** Registration tokens remembered between registrations. */
const REMEMBERED_TOKENS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a runner sends to register. */
export type RegisterInput = {
  /** The registration token, in plain text as the runner sent it. */
  readonly token: string;
  readonly name: string;
  readonly version: string;
  /** Label names (`ubuntu-latest`). */
  readonly labels: readonly string[];
  readonly ephemeral: boolean;
  /** Capability flags the runner advertises, e.g. `cancelling`. */
  readonly capabilities: readonly string[];
};

/** What a starting runner declares, with the credentials it was given at registration. */
export type DeclareInput = {
  /** Credentials from `x-runner-uuid` / `x-runner-token`. */
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
  readonly #rowChanges: ChangeClock;
  /**
   * Runner rows by uuid, as read (or inserted) at a stamp of the clock of existing rows: every
   * RunnerService call checks the runner's credentials, and a reporting runner makes many calls
   * a second. A row is reused only while no write that may alter or remove a row has been
   * committed since, so a runner deleted (or its row otherwise changed) on this process is
   * refused on its very next call, and one changed by another process once the clock has heard
   * of it (change-clock.ts). Only rows that exist are kept, since an insert does not move that
   * clock. The secret is still hashed and compared on every call; only the row is remembered,
   * never the secret.
   */
  readonly #rows = new StampedMemo<string, StoredRunner>(REMEMBERED_RUNNERS);
  /** Registration tokens by hash, kept as runner rows are: a fleet registers with one token. */
  readonly #knownTokens = new StampedMemo<string, RegistrationToken>(REMEMBERED_TOKENS);

  /**
   * `rowChanges` is the database's clock of existing rows (`Database.rowChanges`); without it
   * every check reads the row. `caches` is where the rows' and tokens' caches are declared.
   */
  constructor(
    runners: RunnerStore,
    tokens: RegistrationTokenStore,
    rowChanges: ChangeClock = NO_CHANGE_CLOCK,
    caches?: CacheRegistry,
  ) {
    this.#runners = runners;
    this.#tokens = tokens;
    this.#rowChanges = rowChanges;
    const freshness = 'change-stamp';
    caches?.add(
      { name: 'runner_rows', key: 'runner uuid', freshness, bound: '10,000 runners' },
      this.#rows,
    );
    caches?.add(
      { name: 'registration_tokens', key: 'token hash', freshness, bound: '1,000 tokens' },
      this.#knownTokens,
    );
  }

  /**
   * Creates a runner in the scope of the registration token and returns it with its new secret.
   * Throws `Unauthenticated` for an unknown or deleted token, `Invalid` for an empty name or
   * absurd labels.
   *
   * Invariant: registering again replaces. A runner registered with the name of an earlier one
   * in the same scope (instance, organisation or repository) deletes it, so credentials taken
   * from the earlier registration stop working at once (its next call is `unauthenticated`) and
   * its running task is left to fail as a deleted runner's is. Only the latest registration of
   * a name in a scope authenticates. Ephemeral runners neither replace nor are replaced: a fleet
   * of them may share a name.
   */
  async register(input: RegisterInput): Promise<{ runner: Runner; token: string }> {
    const found = input.token === '' ? undefined : await this.#token(sha256Hex(input.token));
    if (found === undefined) throw new Unauthenticated('runner registration token not found');
    const now = Date.now();
    const secret = randomHex(RUNNER_SECRET_BYTES);
    // Built first: input refused as invalid writes nothing, not even the token's use.
    const stored: StoredRunner = {
      id: newId(),
      uuid: randomUUID(),
      tokenHash: sha256Hex(secret),
      name: runnerName(input.name),
      labels: labelNames(input.labels),
      version: runnerVersion(input.version),
      capabilities: capabilityFlags(input.capabilities),
      storedStatus: 'idle',
      ephemeral: input.ephemeral,
      scope: found.scope,
      createdAt: now,
      lastSeenAt: now,
    };
    const lastUsed = found.lastUsedAt?.getTime() ?? null;
    if (lastUsed === null || now - lastUsed >= TOKEN_USE_RESOLUTION_MS) {
      await this.#tokens.recordUse(found.id, now);
    }
    // Taken after that update and before the insert: a write that may alter rows meanwhile
    // leaves the new row unkept.
    const stamp = this.#rowChanges.stamp();
    await this.#runners.insert(stored);
    // After the insert, so that of two registrations racing one another exactly one stays.
    if (!stored.ephemeral) await this.#runners.deleteReplaced(stored);
    // The starting runner declares itself next: its row is known without reading it back.
    this.#rows.set(stored.uuid, stamp, stored);
    return { runner: toRunner(stored, now), token: secret };
  }

  /**
   * Records version, labels and capabilities of a starting runner and returns it. A runner that
   * restarts unchanged costs a read at most. Throws `Unauthenticated` when the runner is gone or the
   * secret does not match.
   */
  async declare(input: DeclareInput): Promise<Runner> {
    const fields = {
      version: runnerVersion(input.version),
      labels: labelNames(input.labels),
      capabilities: capabilityFlags(input.capabilities),
    };
    const stored = await this.#verified(input.uuid, input.token);
    const now = Date.now();
    const unchanged =
      stored.version === fields.version &&
      sameStrings(stored.labels, fields.labels) &&
      sameStrings(stored.capabilities, fields.capabilities);
    if (unchanged && !shouldRecordSeen(stored.storedStatus, stored.lastSeenAt, now)) {
      return toRunner(stored, now);
    }
    // Guarded by the hash again: a runner deleted since the read is not brought back.
    const updated = await this.#runners.declare(stored.uuid, stored.tokenHash, fields, now);
    if (updated === undefined) throw unregistered();
    return toRunner(updated, now);
  }

  /**
   * The runner holding these credentials, after refreshing its last-seen time (at most once per
   * `SEEN_RESOLUTION_MS`). Throws `Unauthenticated` for an unknown uuid, a deleted runner or a
   * wrong secret, without saying which.
   */
  async authenticate(uuid: string, token: string): Promise<Runner> {
    const stored = await this.#verified(uuid, token);
    const now = Date.now();
    let current = stored;
    if (shouldRecordSeen(stored.storedStatus, stored.lastSeenAt, now)) {
      await this.#runners.recordSeen(stored.id, stored.lastSeenAt, now);
      current = {
        ...stored,
        lastSeenAt: now,
        storedStatus: stored.storedStatus === 'offline' ? 'idle' : stored.storedStatus,
      };
    }
    return toRunner(current, now);
  }

  /** The stored runner whose secret hashes to the stored hash, compared in constant time. */
  async #verified(uuid: string, token: string): Promise<StoredRunner> {
    if (!UUID.test(uuid) || token === '') throw unregistered();
    const stored = await this.#row(uuid);
    // Hash even when there is no row, so an unknown uuid costs what a wrong secret costs.
    const presented = sha256Hex(token);
    if (stored === undefined || !safeEqual(stored.tokenHash, presented)) throw unregistered();
    return stored;
  }

  /** The registration token with this hash, from memory while no row has changed since. */
  #token(hash: string): Promise<RegistrationToken | undefined> {
    return this.#knownTokens.readFound(hash, this.#rowChanges.stamp(), () =>
      this.#tokens.findByHash(hash),
    );
  }

  /** The runner's row, from memory while no row has changed since it was read. */
  #row(uuid: string): Promise<StoredRunner | undefined> {
    // The stamp is taken before the read, so a write that lands during it leaves the row stale.
    return this.#rows.readFound(uuid, this.#rowChanges.stamp(), () =>
      this.#runners.findByUuid(uuid),
    );
  }
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

function unregistered(): Unauthenticated {
  return new Unauthenticated('unregistered runner');
}
