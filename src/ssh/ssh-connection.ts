import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Connection, ServerChannel, Session } from 'ssh2';
import { DomainError } from '../domain/errors.ts';
import type { SshLog } from './git-commands.ts';
import { authenticate, connectionThrottle, greeting, type SshAuthServices } from './ssh-auth.ts';
import { type SshCommandTable, splitCommand } from './ssh-commands.ts';

/**
 * One SSH connection once through the handshake: its authentication (public keys, throttled per
 * address) and its sessions, each running one command of the table on its channel. The listener
 * (ssh-server.ts) owns the sockets, the limits and the drain.
 */

/** What each connection is served: who keys are, the commands it runs, where failures go. */
export type ConnectionParts = {
  readonly services: SshAuthServices;
  readonly commands: SshCommandTable;
  readonly log: SshLog;
};

/** One client connection: its socket, and whether it is authenticated and busy. */
export type Peer = {
  readonly socket: Socket;
  authenticated: boolean;
  running: number;
  client?: Connection;
};

/** Variables an `env` request may set; the rest are ignored, as OpenSSH's AcceptEnv does. */
const ACCEPTED_ENV = new Set(['GIT_PROTOCOL']);

/** Authentication and sessions of one connection; `idle` is called when it runs nothing. */
export function servePeer(
  parts: ConnectionParts,
  peer: Peer,
  client: Connection,
  address: string,
  idle: () => void,
): void {
  let principal: Parameters<typeof greeting>[0] | undefined;
  const throttle = connectionThrottle(parts.services.loginThrottle, address);
  client.on('authentication', (context) => {
    // Every client starts by asking which methods there are; that is no attempt.
    if (context.method === 'none') return context.reject(['publickey']);
    const judged = async () => {
      if (!(await throttle.admitted())) {
        context.reject();
        client.end();
        return;
      }
      const outcome = await authenticate(parts.services, context);
      if (outcome.kind === 'rejected') return context.reject(['publickey']);
      if (outcome.kind === 'accepted') {
        await throttle.succeeded();
        principal = outcome.principal;
        peer.authenticated = true;
      }
      context.accept();
    };
    judged().catch((error: unknown) => {
      parts.log.error({ err: error }, 'ssh authentication failed');
      context.reject(['publickey']);
    });
  });
  client.on('session', (accept) => {
    const session: Session = accept();
    const env: Record<string, string> = {};
    session.on('env', (acceptEnv, rejectEnv, info) => {
      if (ACCEPTED_ENV.has(info.key) && info.val.length <= 256) {
        env[info.key] = info.val;
        acceptEnv?.();
      } else rejectEnv?.();
    });
    session.on('shell', (acceptShell) => {
      const channel = acceptShell();
      if (principal) channel.stderr.write(greeting(principal));
      finish(channel, 1);
    });
    session.on('exec', (acceptExec, _reject, info) => {
      const channel = acceptExec();
      if (!principal) return finish(channel, 1);
      // Busy until the channel is closed on both sides, not merely when the command ends: what
      // the command wrote may still wait for the client's window, and ending the connection
      // then (a server shutting down) would cut the clone short.
      peer.running += 1;
      channel.once('close', () => {
        peer.running -= 1;
        if (peer.running === 0) idle();
      });
      runCommand(parts, { principal, env, channel, line: info.command }).catch((error: unknown) => {
        parts.log.error({ err: error }, 'ssh command failed');
        channel.destroy();
      });
    });
  });
}

/** Runs one command line on its channel and ends the channel with the command's status. */
async function runCommand(
  parts: ConnectionParts,
  run: {
    principal: NonNullable<Parameters<typeof greeting>[0]>;
    env: Record<string, string>;
    channel: ServerChannel;
    line: string;
  },
): Promise<void> {
  const { channel } = run;
  // Invariant: a connection speaks for its key only while the key and its owner may act. Each
  // command asks again, as each HTTP request does, so a connection kept open (a multiplexing
  // client's) outlives neither a disabled account nor a removed key.
  const principal = await parts.services.sshKeys.identify(run.principal.key.fingerprint);
  if (!principal) {
    channel.stderr.write('Kiln: this key no longer gives access.\n');
    return finish(channel, 1);
  }
  const parsed = splitCommand(run.line);
  const command = parsed && parts.commands.get(parsed.name);
  if (!parsed || !command) {
    channel.stderr.write('Kiln: this command is not served here.\n');
    return finish(channel, 1);
  }
  // Git may stop reading before the client stops sending: a stream of its own between them
  // keeps git's end from tearing down the channel, which still carries the answer.
  const input = new PassThrough();
  channel.pipe(input);
  // A client that goes away stops its git.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  channel.once('close', onAbort);
  try {
    const result = await command({
      principal,
      args: parsed.args,
      env: run.env,
      input,
      output: channel,
      signal: stop.signal,
    });
    if (result.message) channel.stderr.write(`Kiln: ${result.message}\n`);
    finish(channel, result.status);
  } catch (error) {
    if (!(error instanceof DomainError)) {
      parts.log.warn({ err: error }, 'ssh command failed');
    }
    // What a domain error says is written for the client; anything else is not.
    const message = error instanceof DomainError ? error.message : 'the command failed';
    channel.stderr.write(`Kiln: ${message}\n`);
    finish(channel, error instanceof DomainError ? 1 : 128);
  } finally {
    channel.off('close', onAbort);
  }
}

/** Sends the exit status and closes the channel (the status must come first). */
function finish(channel: ServerChannel, status: number): void {
  // A client that left first has closed the channel: there is no one to tell.
  if (channel.destroyed) return;
  channel.exit(status);
  channel.end();
}
