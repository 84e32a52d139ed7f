import type { Socket } from 'node:net';
import type { ClientInfo, Connection, Server } from 'ssh2';
import { loadOnFirstUse } from '../lib/load-on-first-use.ts';
import { KILN_VERSION } from '../version.ts';

const ssh2 = loadOnFirstUse<typeof import('ssh2')>('ssh2');
/** Whether ssh2's native ciphers (its optional compiled binding) were built on this machine. */
const nativeCiphers = loadOnFirstUse<{ bindingAvailable: boolean }>('ssh2/lib/protocol/crypto.js');

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
  // AES-GCM is OpenSSL's, in native code whatever ssh2 was built with (see `ciphers`).
  cipher: ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes256-ctr'],
} as const;

/**
 * ChaCha20-Poly1305, the cipher OpenSSH clients ask for first, when ssh2 has it in native code:
 * there it is the cheapest of all for the server, and the client's pick. Without the binding it
 * is JavaScript, held a 5 MB clone to a tenth of the speed, and is not offered. The client's
 * order decides among the rest: OpenSSH takes AES-CTR (with an HMAC over every packet, a third
 * slower than AES-GCM on both ends) before AES-GCM, so a server without ChaCha20 gets CTR.
 */
function ciphers(): Array<(typeof ALGORITHMS.cipher)[number] | 'chacha20-poly1305@openssh.com'> {
  const chacha = nativeCiphers().bindingAvailable
    ? (['chacha20-poly1305@openssh.com'] as const)
    : [];
  return [...chacha, ...ALGORITHMS.cipher];
}

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
            cipher: ciphers(),
          },
          ident: `Kiln_${KILN_VERSION}`,
        },
        onClient,
      );
      server.injectSocket(socket);
    },
  };
}
