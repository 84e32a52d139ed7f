import { createHash, randomBytes } from 'node:crypto';
import { signJwt, verifyJwt } from '../../lib/jwt.ts';
import { Forbidden, NotFound, Unauthenticated } from '../errors.ts';
import { sshGitAccess } from '../keys/ssh-git-access.ts';
import type { SshKeyService, SshPrincipal } from '../keys/ssh-key.service.ts';
import { type GitAccessRepos, requireGitAccess } from '../repos/git-access.ts';
import type { VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';

/** The two things git-lfs asks a credential for. */
export type LfsOperation = 'upload' | 'download';

/** What a grant names: the SSH key that asked, one repository, one operation, an expiry. */
export type LfsSshClaims = {
  readonly keyId: string;
  /** OpenSSH's `SHA256:…` of the key, by which it is looked up again at each use. */
  readonly fingerprint: string;
  readonly repoId: string;
  readonly operation: LfsOperation;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
};

/** How long a grant lives: git-lfs asks again over SSH when it runs out. */
export const LFS_SSH_GRANT_SECONDS = 600;

/** What marks a bearer credential as a grant, so that other tokens never reach its verifier. */
const PREFIX = 'kiln-lfs-ssh:';

/**
 * Short-lived credentials for Git LFS over SSH (`git-lfs-authenticate`): an HS256 token over
 * the key, the repository, the operation and the expiry, signed with a key derived from
 * `service.secret-key` (without one, from a key made when the process starts, so replicas
 * must share a secret key). A grant carries no power of its own: at each use the key is looked
 * up again and its owner's access checked again (`lfsGrantAccess`).
 */
export class LfsSshGrants {
  readonly #key: Buffer;

  constructor(secretKey: string | undefined) {
    this.#key = createHash('sha256')
      .update('kiln lfs over ssh grant\0')
      .update(secretKey ?? randomBytes(32))
      .digest();
  }

  /** A bearer credential for `claims`, valid for LFS_SSH_GRANT_SECONDS from `now`. */
  mint(claims: Omit<LfsSshClaims, 'expiresAt'>, now = Date.now()): string {
    const exp = Math.floor(now / 1000) + LFS_SSH_GRANT_SECONDS;
    return `${PREFIX}${signJwt(this.#key, {
      kid: claims.keyId,
      fpr: claims.fingerprint,
      rid: claims.repoId,
      op: claims.operation,
      exp,
    })}`;
  }

  /** Whether `token` is meant for this verifier (it may still be forged or expired). */
  claims(token: string): boolean {
    return token.startsWith(PREFIX);
  }

  /** The claims of a grant this service signed that has not expired, or undefined. */
  verify(token: string, now = Date.now()): LfsSshClaims | undefined {
    if (!this.claims(token)) return undefined;
    const claims = verifyJwt(this.#key, token.slice(PREFIX.length));
    if (claims === undefined) return undefined;
    const { kid, fpr, rid, op, exp } = claims;
    if (typeof exp !== 'number' || exp * 1000 <= now) return undefined;
    if (typeof kid !== 'string' || typeof fpr !== 'string' || typeof rid !== 'string') {
      return undefined;
    }
    if (op !== 'upload' && op !== 'download') return undefined;
    return { keyId: kid, fingerprint: fpr, repoId: rid, operation: op, expiresAt: exp * 1000 };
  }
}

/** What checking a grant reads: the key again, and the repository. */
export type LfsGrantDeps = {
  readonly sshKeys: Pick<SshKeyService, 'identify'>;
  readonly repos: GitAccessRepos;
};

/** What a grant opens: the repository, and who acts (for locks) when anyone does. */
export type LfsGrantAccess = { readonly visible: VisibleRepo; readonly user: User | undefined };

/**
 * The access a verified grant gives to `owner/name` for a read or a write. Invariant: a grant
 * opens only the repository it names, and only for its operation (a download grant never
 * writes, an upload grant never reads), and never more than its key gives now: a removed key, a
 * disabled owner or lost access refuse it as SSH would. Another repository reads as missing.
 */
export async function lfsGrantAccess(
  deps: LfsGrantDeps,
  claims: LfsSshClaims,
  owner: string,
  name: string,
  write: boolean,
): Promise<LfsGrantAccess> {
  if (claims.operation !== (write ? 'upload' : 'download')) {
    throw new Forbidden(`this credential is for ${claims.operation} only`);
  }
  const principal = await deps.sshKeys.identify(claims.fingerprint);
  if (!principal || principal.key.id !== claims.keyId) {
    throw new Unauthenticated('the SSH key of this credential is no longer valid');
  }
  const granted = await lfsSshAccess(deps.repos, principal, owner, name, write);
  if (granted.visible.repo.id !== claims.repoId) throw new NotFound('repository does not exist');
  return granted;
}

/**
 * The LFS access an SSH key gives to `owner/name`, for a read or a write: a person's key is that
 * person under git's rules; a deploy key opens its own repository only (read-only or not), and
 * its locks are those of the account that added it. Shared by the grants of
 * `git-lfs-authenticate` and by `git-lfs-transfer`, so the two cannot drift apart.
 */
export async function lfsSshAccess(
  repos: GitAccessRepos,
  principal: SshPrincipal,
  owner: string,
  name: string,
  write: boolean,
): Promise<LfsGrantAccess> {
  if (principal.kind === 'user') {
    const visible = await requireGitAccess(repos, principal.user, owner, name, write);
    return { visible, user: principal.user };
  }
  const { repo, pusher } = await sshGitAccess(repos, principal, owner, name, write);
  const level = principal.key.readOnly ? 'read' : 'write';
  return { visible: { repo, access: { level } }, user: pusher };
}
