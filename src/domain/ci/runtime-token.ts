import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { signJwt, verifyJwt } from '../../lib/jwt.ts';

/** What a runtime token names: the task, and the run and job ids the v4 client sends back. */
export type RuntimeClaims = {
  readonly taskId: number;
  /** `workflow_run_backend_id` and `workflow_job_run_backend_id` of the v4 protocol. */
  readonly runBackendId: string;
  readonly jobBackendId: string;
};

/**
 * `ACTIONS_RUNTIME_TOKEN` for a task (`gitea_runtime_token`/`forgejo_runtime_token` in its
 * context): an HS256 JWT whose `scp` holds `Actions.Results:<run>:<job>`, the scope the v4
 * artifact client reads (without verifying) to learn which ids to send. Kiln verifies it with a
 * key derived from `service.secret-key` — or, without one, from a key made when the process
 * starts, so replicas must share a secret key for a task to reach any of them. It names a task
 * and dies with it: the verifier also checks the task is still running.
 */
export class RuntimeTokens {
  readonly #key: Buffer;

  constructor(secretKey: string | undefined) {
    this.#key = createHash('sha256')
      .update('kiln actions runtime token\0')
      .update(secretKey ?? randomBytes(32))
      .digest();
  }

  /** A token for `claims`, valid until `expiresAt` (ms since the epoch). */
  mint(claims: RuntimeClaims, expiresAt: number, now = Date.now()): string {
    return signJwt(this.#key, {
      scp: `Actions.Results:${claims.runBackendId}:${claims.jobBackendId}`,
      TaskID: claims.taskId,
      RunID: claims.runBackendId,
      JobID: claims.jobBackendId,
      ac: '[]',
      nbf: Math.floor(now / 1000) - 60,
      exp: Math.floor(expiresAt / 1000),
    });
  }

  /** An HMAC of `text` (base64url, unpadded), for the signed blob URLs of artifacts. */
  sign(text: string): string {
    return createHmac('sha256', this.#key).update(`url\0${text}`).digest('base64url');
  }

  /**
   * Whether `signature` is `sign(text)`. Clients differ in how they pass it on: padded or not,
   * base64 or base64url; all are the same bytes.
   */
  checkSignature(text: string, signature: string): boolean {
    const given = Buffer.from(signature.replace(/=+$/, ''), 'base64url');
    const expected = Buffer.from(this.sign(text), 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The claims of a token this instance minted that has not expired, or undefined. */
  verify(token: string, now = Date.now()): RuntimeClaims | undefined {
    const claims = verifyJwt(this.#key, token);
    if (claims === undefined) return undefined;
    const { TaskID, RunID, JobID, exp } = claims;
    if (typeof exp !== 'number' || exp * 1000 <= now) return undefined;
    if (typeof TaskID !== 'number' || !Number.isSafeInteger(TaskID)) return undefined;
    if (typeof RunID !== 'string' || typeof JobID !== 'string') return undefined;
    return { taskId: TaskID, runBackendId: RunID, jobBackendId: JobID };
  }
}
