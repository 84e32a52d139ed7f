import type { AuthContext } from 'ssh2';
import type { SshKeyService, SshPrincipal } from '../domain/keys/ssh-key.service.ts';
import type { LoginThrottle } from '../domain/sessions/login-throttle.ts';
import { sshFingerprint } from '../lib/ssh-public-key.ts';
import { ssh2 } from '../lib/ssh2-package.ts';

/** The only user name git over SSH answers to, as in `git@host:owner/name.git`. */
export const SSH_USER = 'git';

/** Signature algorithms accepted from clients: SHA-1 RSA signatures (`ssh-rsa`) are not. */
const CLIENT_KEY_ALGORITHMS = new Set([
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-256',
  'rsa-sha2-512',
]);

/** What authenticating reads: who keys belong to, and the sign-in throttle per address. */
export type SshAuthServices = {
  readonly sshKeys: Pick<SshKeyService, 'identify' | 'touch'>;
  readonly loginThrottle: Pick<LoginThrottle, 'attempt' | 'succeeded'>;
};

/** How one authentication request ended. */
export type SshAuthOutcome =
  | { readonly kind: 'accepted'; readonly principal: SshPrincipal }
  | { readonly kind: 'key-ok' }
  | { readonly kind: 'rejected' };

/**
 * Judges one authentication request: only the user `git`, only public keys signed with SHA-2
 * or better, only keys Kiln knows whose owner may act (`SshKeyService.identify`), and a
 * signature that verifies. A refusal says nothing of what exists: an unknown key, a disabled
 * owner and a bad signature read alike.
 */
export async function authenticate(
  services: Pick<SshAuthServices, 'sshKeys'>,
  context: AuthContext,
): Promise<SshAuthOutcome> {
  if (context.username !== SSH_USER || context.method !== 'publickey') return { kind: 'rejected' };
  if (!CLIENT_KEY_ALGORITHMS.has(context.key.algo)) return { kind: 'rejected' };
  const principal = await services.sshKeys.identify(sshFingerprint(context.key.data));
  if (!principal) return { kind: 'rejected' };
  // The client asks first whether the key would do; it signs only then.
  if (!context.signature || !context.blob) return { kind: 'key-ok' };
  const key = ssh2().utils.parseKey(context.key.data);
  if (key instanceof Error || !key.verify(context.blob, context.signature, context.hashAlgo)) {
    return { kind: 'rejected' };
  }
  await services.sshKeys.touch(principal.key);
  return { kind: 'accepted', principal };
}

/**
 * One connection's sign-in as the throttle sees it, as one sign-in over HTTP is: counted
 * against the client's address when it first tries a key, and given back once it
 * authenticates. A connection that never does keeps its count, so an address that opens many
 * and gets nowhere is locked out (`admitted` answers false) for the throttle's lock time.
 * Trying several keys on one connection, as clients with an agent do, counts once.
 */
export function connectionThrottle(
  throttle: SshAuthServices['loginThrottle'],
  address: string,
): { admitted(): Promise<boolean>; succeeded(): Promise<void> } {
  let verdict: Promise<boolean> | undefined;
  return {
    admitted() {
      verdict ??= throttle.attempt({ address }).then((result) => result.allowed);
      return verdict;
    },
    succeeded: () => throttle.succeeded({ address }),
  };
}

/** What `ssh -T git@host` prints: who the key is, and that there is no shell. */
export function greeting(principal: SshPrincipal): string {
  const name =
    principal.kind === 'user'
      ? principal.user.handle
      : `${principal.repo.owner.handle}/${principal.repo.name}`;
  return `Hi ${name}! You've successfully authenticated, but Kiln does not provide shell access.\n`;
}
