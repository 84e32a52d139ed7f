import type { AuthContext } from 'ssh2';
import type { SshKeyService, SshPrincipal } from '../domain/keys/ssh-key.service.ts';
import type { LoginThrottle } from '../domain/sessions/login-throttle.ts';
import { loadOnFirstUse } from '../lib/load-on-first-use.ts';
import { sshFingerprint } from '../lib/ssh-public-key.ts';

const ssh2 = loadOnFirstUse<typeof import('ssh2')>('ssh2');

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
  | { readonly kind: 'rejected' }
  | { readonly kind: 'locked' };

/**
 * Judges one authentication request: only the user `git`, only public keys, only keys Kiln
 * knows whose owner may act (`SshKeyService.identify`), and a signature that verifies. Every
 * refusal counts against the client's address in the sign-in throttle, as a wrong password
 * does over HTTP, except the `none` probe every client starts with; a client whose address
 * is locked is `locked` and is disconnected. Refusals say nothing of what exists.
 */
export async function authenticate(
  services: SshAuthServices,
  address: string,
  context: AuthContext,
): Promise<SshAuthOutcome> {
  if (context.method === 'none') return { kind: 'rejected' };
  const refuse = async (): Promise<SshAuthOutcome> => {
    const verdict = await services.loginThrottle.attempt({ address });
    return verdict.allowed ? { kind: 'rejected' } : { kind: 'locked' };
  };
  if (context.username !== SSH_USER || context.method !== 'publickey') return refuse();
  if (!CLIENT_KEY_ALGORITHMS.has(context.key.algo)) return refuse();
  const principal = await services.sshKeys.identify(sshFingerprint(context.key.data));
  if (!principal) return refuse();
  // The client asks first whether the key would do; it signs only then.
  if (!context.signature || !context.blob) return { kind: 'key-ok' };
  const verdict = await services.loginThrottle.attempt({ address });
  if (!verdict.allowed) return { kind: 'locked' };
  const key = ssh2().utils.parseKey(context.key.data);
  if (key instanceof Error || !key.verify(context.blob, context.signature, context.hashAlgo)) {
    return { kind: 'rejected' };
  }
  await services.loginThrottle.succeeded({ address });
  await services.sshKeys.touch(principal.key);
  return { kind: 'accepted', principal };
}

/** What `ssh -T git@host` prints: who the key is, and that there is no shell. */
export function greeting(principal: SshPrincipal): string {
  const name =
    principal.kind === 'user'
      ? principal.user.handle
      : `${principal.repo.owner.handle}/${principal.repo.name}`;
  return `Hi ${name}! You've successfully authenticated, but Kiln does not provide shell access.\n`;
}
