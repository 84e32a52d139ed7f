import { sha256Hex } from '../../lib/crypto.ts';
import type { LoginThrottleStore, ThrottleRule } from './login-throttle.store.ts';

/** The limits of `service.auth.login-*`. */
export type LoginThrottleSettings = {
  readonly accountLimit: number;
  readonly addressLimit: number;
  readonly windowMs: number;
  readonly lockMs: number;
};

/** Who is trying: the name typed into the form and the proxy-aware client address. */
export type LoginSubject = { readonly login?: string; readonly address: string };

export type ThrottleVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

/**
 * Password guessing, slowed down per account name and per client address. Each attempt is
 * counted before the password is checked, so a burst of parallel guesses cannot slip past the
 * limit while the hashes run; a success takes its count back. Past the limit a key is locked,
 * first for `lockMs`, twice as long after each further failure, at most `windowMs`.
 *
 * Counts live in the database, so the limits hold across replicas. Keys are SHA-256 hashes of
 * the lower-cased name as typed (a person mistyping a password into the name field leaves no
 * plaintext behind) and of the address. The name is counted whether or not an account has it,
 * so a lock says nothing about which names exist; a handle and its email count separately.
 */
export class LoginThrottle {
  readonly #store: LoginThrottleStore;
  readonly #account: ThrottleRule;
  readonly #address: ThrottleRule;

  constructor(store: LoginThrottleStore, settings: LoginThrottleSettings) {
    this.#store = store;
    const lock = { windowMs: settings.windowMs, firstLockMs: settings.lockMs };
    const maxLockMs = Math.max(settings.windowMs, settings.lockMs);
    this.#account = { ...lock, maxLockMs, limit: settings.accountLimit };
    this.#address = { ...lock, maxLockMs, limit: settings.addressLimit };
  }

  /** Counts an attempt by `subject`, or refuses it while either of its keys is locked. */
  async attempt(subject: LoginSubject, now = Date.now()): Promise<ThrottleVerdict> {
    for (const [key, rule] of this.#keys(subject)) {
      if ((await this.#store.count(key, rule, now)) === undefined) {
        const until = await this.#store.lockedUntil(key);
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
      }
    }
    return { allowed: true };
  }

  /** The attempt proved the password: the name starts afresh, the address gets its try back. */
  async succeeded(subject: LoginSubject): Promise<void> {
    for (const [key, rule] of this.#keys(subject)) {
      if (rule === this.#account) await this.#store.clear(key);
      else await this.#store.undo(key, rule);
    }
  }

  /** The attempt was not a guess after all (a mistyped sign-up form): take its count back. */
  async forgive(subject: LoginSubject): Promise<void> {
    for (const [key, rule] of this.#keys(subject)) await this.#store.undo(key, rule);
  }

  /** Recent failures of the name or the address, whichever is higher (for the captcha). */
  async recentFailures(subject: LoginSubject, now = Date.now()): Promise<number> {
    const keys = this.#keys(subject).map(([key]) => key);
    return this.#store.failures(keys, this.#account.windowMs, now);
  }

  /** The address first: an address that is locked does not get to spend a name's attempts. */
  #keys(subject: LoginSubject): Array<[string, ThrottleRule]> {
    const keys: Array<[string, ThrottleRule]> = [
      [sha256Hex(`address:${subject.address}`), this.#address],
    ];
    if (subject.login !== undefined) {
      keys.push([sha256Hex(`login:${subject.login.trim().toLowerCase()}`), this.#account]);
    }
    return keys;
  }
}
