import type { Socket } from 'node:net';
import type { ClientInfo, Connection, Server } from 'ssh2';
import { ssh2 } from '../lib/ssh2-package.ts';
import { KILN_VERSION } from '../version.ts';

// Curve25519 first; NIST curves for clients without it. No SHA-1 key exchange or host keys.
const ALGORITHMS = {
  kex: [
    'curve25519-sha256',
    'curve25519-sha256@libssh.org',
    'ecdh-sha2-nistp256',
    'ecdh-sha2-nistp384',
    'ecdh-sha2-nistp521',
  ],
  serverHostKey: ['ssh-ed25519', 'rsa-sha2-512', 'rsa-sha2-256'],
  // ssh2 runs without its compiled addon (lib/ssh2-package.ts): AES-GCM and AES-CTR are still
  // OpenSSL's, through node:crypto; ChaCha20-Poly1305 would be JavaScript, held a 5 MB clone to a
  // tenth of the speed, and is not offered. The client's order decides among these: OpenSSH
  // takes AES-CTR (with an HMAC over every packet, a third slower than AES-GCM on both ends).
  cipher: ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes256-ctr'],
} as const;

/** The SSH protocol over sockets the listener has accepted. */
export type SshProtocol = {
  /** Speaks SSH on `socket`; a client that gets through the handshake goes to `onClient`. */
  take(socket: Socket): void;
};

/**
 * ssh2's server, without a listener of its own (the caller's `node:net` one applies the limits),
 * made with the first connection rather than at start: ssh2 and its ciphers are megabytes of
 * resident memory that a server nobody reaches over SSH should not hold. Its host keys are
 * parsed then too; a key it cannot read fails that connection and every later one, each
 * failure thrown to the caller.
 */
export function sshProtocol(
  hostKeys: readonly Buffer[],
  onClient: (client: Connection, info: ClientInfo) => void,
): SshProtocol {
  let server: Server | undefined;
  return {
    take(socket) {
      server ??= new (ssh2().Server)(
        {
          hostKeys: hostKeys.map((key) => ({ key })),
          algorithms: {
            kex: [...ALGORITHMS.kex],
            serverHostKey: [...ALGORITHMS.serverHostKey],
            cipher: [...ALGORITHMS.cipher],
          },
          ident: `Kiln_${KILN_VERSION}`,
        },
        onClient,
      );
      server.injectSocket(socket);
    },
  };
}
