import type { Config } from '../config/config.ts';
import type { DomainServices } from '../domain/services.ts';
import { type GitSshServices, gitCommands, type PushHints, type SshLog } from './git-commands.ts';
import { loadHostKeys } from './host-keys.ts';
import type { SshCommand } from './ssh-commands.ts';
import { createSshServer, type SshServer } from './ssh-server.ts';

/** What the SSH edge takes from the composition root. */
export type SshEdgeDeps = {
  readonly services: Pick<
    DomainServices,
    'sshKeys' | 'loginThrottle' | 'repos' | 'protectedBranches' | 'pushHandling' | 'pullSuggestions'
  >;
  readonly config: Pick<Config, 'ssh' | 'http'>;
  readonly dataDir: string;
  readonly log: SshLog;
  /** Commands served beside git's (`git-lfs-authenticate`, say), by name. */
  readonly extraCommands?: ReadonlyArray<readonly [string, SshCommand]>;
  /** What a push of a branch shows its pusher (where to open its pull), as over HTTP. */
  readonly pushHints?: PushHints;
};

/** A started SSH server and where it listens. */
export type ServedSsh = {
  readonly server: SshServer;
  readonly host: string;
  readonly port: number;
};

/**
 * Starts the SSH server of `service.ssh.*`: host keys from the data directory (made on first
 * start), git's commands and any others given, listening on the SSH host (the HTTP host unless
 * set) and port.
 */
export async function serveSsh(deps: SshEdgeDeps): Promise<ServedSsh> {
  const { ssh } = deps.config;
  const services: GitSshServices & typeof deps.services = deps.services;
  const commands = new Map<string, SshCommand>([
    ...gitCommands(services, deps.log, deps.pushHints),
    ...(deps.extraCommands ?? []),
  ]);
  const server = createSshServer({
    hostKeys: await loadHostKeys(deps.dataDir),
    services,
    commands,
    settings: ssh,
    log: deps.log,
  });
  const host = ssh.host ?? deps.config.http.host;
  try {
    return { server, host, port: await server.listen(host, ssh.port) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new Error(
      `port ${ssh.port} on ${host} is already in use; choose another with service.ssh.port (SERVICE_SSH_PORT), or turn SSH off with service.ssh.enabled (SERVICE_SSH_ENABLED)`,
    );
  }
}
