import { createServer, type Server as NetServer } from 'node:net';
import { sendWritesPerTick } from './socket-writes.ts';
import { type ConnectionParts, type Peer, servePeer } from './ssh-connection.ts';
import { sshProtocol } from './ssh-protocol.ts';

/** The limits of `service.ssh.*` the server applies to each connection. */
export type SshServerSettings = {
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  readonly loginTimeoutMs: number;
};

/** What the server is made of: host keys, its limits, and what each connection is served. */
export type SshServerParts = ConnectionParts & {
  readonly hostKeys: readonly Buffer[];
  readonly settings: SshServerSettings;
};

/** A listening SSH server. */
export type SshServer = {
  /** Starts listening; resolves with the port actually bound (for port 0). */
  listen(host: string, port: number): Promise<number>;
  /**
   * Stops accepting connections, lets the commands running finish (as HTTP lets requests in
   * flight finish), closes every connection as soon as it runs none, and resolves when all are
   * gone.
   */
  close(): Promise<void>;
};

/**
 * Kiln's SSH server: git over SSH for the user `git`, authenticated by public key, running the
 * commands of its table and nothing else: no shell (a shell request is greeted and refused),
 * no terminal, no forwarding, no agent (ssh2 refuses every request nobody listens for). Each
 * connection has `loginTimeoutMs` to authenticate and is closed after `idleTimeoutMs` of
 * silence; beyond `maxSessions` connections at once, new ones are closed at once.
 */
export function createSshServer(parts: SshServerParts): SshServer {
  const { settings, log } = parts;
  const peers = new Map<string, Peer>();
  let closing = false;
  let drained: (() => void) | undefined;

  const ssh = sshProtocol(parts.hostKeys, (client, info) => {
    const peer = peers.get(`${info.ip}|${info.port}`);
    if (!peer) return client.end();
    peer.client = client;
    client.on('error', () => peer.socket.destroy());
    servePeer(parts, peer, client, info.ip, () => {
      if (closing && peer.running === 0) client.end();
    });
  });

  const net: NetServer = createServer((socket) => {
    if (closing || peers.size >= settings.maxSessions) {
      socket.destroy();
      return;
    }
    const key = `${socket.remoteAddress}|${socket.remotePort}`;
    const peer: Peer = { socket, authenticated: false, running: 0 };
    peers.set(key, peer);
    socket.setTimeout(settings.idleTimeoutMs, () => socket.destroy());
    const login = setTimeout(() => {
      if (!peer.authenticated) socket.destroy();
    }, settings.loginTimeoutMs);
    login.unref();
    socket.once('close', () => {
      clearTimeout(login);
      peers.delete(key);
      if (closing && peers.size === 0) drained?.();
    });
    sendWritesPerTick(socket);
    try {
      ssh.take(socket);
    } catch (error) {
      log.error({ err: error }, 'ssh connection refused: the SSH server cannot start');
      socket.destroy();
    }
  });
  net.on('error', (error) => log.error({ err: error }, 'ssh server failed'));

  return {
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        net.once('error', reject);
        net.listen({ host, port }, () => {
          net.off('error', reject);
          const address = net.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      }),
    async close() {
      closing = true;
      const allGone = new Promise<void>((resolve) => {
        drained = resolve;
        if (peers.size === 0) resolve();
      });
      net.close();
      for (const peer of peers.values()) {
        if (peer.running > 0) continue;
        if (peer.client) peer.client.end();
        else peer.socket.destroy();
      }
      await allGone;
    },
  };
}
