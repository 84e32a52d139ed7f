import { DomainError, Forbidden } from '../domain/errors.ts';
import type { SshKeyService } from '../domain/keys/ssh-key.service.ts';
import type { LfsService } from '../domain/lfs/lfs.service.ts';
import type { LfsLockService } from '../domain/lfs/lfs-lock.service.ts';
import { type LfsGrantAccess, lfsSshAccess } from '../domain/lfs/lfs-ssh-grant.ts';
import type { GitAccessRepos } from '../domain/repos/git-access.ts';
import { encodePktLine } from '../git/pkt-line.ts';
import type { SshLog } from './git-commands.ts';
import { listLocks, lock, unlock } from './lfs-transfer-locks.ts';
import { batch, getObject, putObject, verifyObject } from './lfs-transfer-objects.ts';
import {
  FramingError,
  PacketSink,
  PacketSource,
  type TransferReply,
  textOf,
} from './lfs-transfer-wire.ts';
import { lfsCommandTarget, type SshCommand, type SshCommandContext } from './ssh-commands.ts';

/** What `git-lfs-transfer` uses: the keys, git's access rules, LFS objects and locks. */
export type LfsTransferServices = {
  readonly repos: GitAccessRepos;
  readonly sshKeys: Pick<SshKeyService, 'identify'>;
  readonly lfs: Pick<LfsService, 'batch' | 'upload' | 'verify' | 'locate'>;
  readonly lfsLocks: Pick<LfsLockService, 'lock' | 'list' | 'verify' | 'unlock'>;
};

/** One connection of `git-lfs-transfer`: its streams, its operation, its access. */
export type TransferSession = {
  readonly source: PacketSource;
  readonly sink: PacketSink;
  readonly operation: 'upload' | 'download';
  readonly services: LfsTransferServices;
  /** The key's access to the repository, checked again now (`write`: push access). */
  access(write: boolean): Promise<LfsGrantAccess>;
};

/**
 * One command of the protocol, given the words after its name. It reads the rest of the
 * command before it acts (so a refusal leaves the session in step) and returns its reply, or
 * undefined when it wrote the reply itself (`get-object`, whose reply is the object).
 */
export type TransferCommand = (
  session: TransferSession,
  words: readonly string[],
) => Promise<TransferReply | undefined>;

const COMMANDS: ReadonlyMap<string, TransferCommand> = new Map([
  ['batch', batch],
  ['put-object', putObject],
  ['verify-object', verifyObject],
  ['get-object', getObject],
  ['lock', lock],
  ['list-lock', listLocks(false)],
  ['list-locks', listLocks(true)],
  ['unlock', unlock],
]);

/** The HTTP status git-lfs reads for each domain error, as the LFS API answers it. */
const STATUS: Readonly<Record<string, number>> = {
  not_found: 404,
  forbidden: 403,
  unauthenticated: 403,
  conflict: 409,
  invalid: 422,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

/**
 * The `git-lfs-transfer <repo> <upload|download>` command: Git LFS over SSH alone (git-lfs ≥ 3
 * tries it before `git-lfs-authenticate`). pkt-line framed: the server offers `version=1` and
 * `locking`, then answers commands (`batch`, `put-object`, `verify-object`, `get-object`,
 * `lock`, `list-lock`, `list-locks`, `unlock`) one at a time until `quit` or the end of input.
 *
 * Invariant: each command is judged as the HTTP API judges a request, by the same domain
 * services. The key is looked up again and its access checked again for every command
 * (`lfsSshAccess`, shared with the grants of `git-lfs-authenticate`), so a long connection
 * outlives neither its key nor its owner's access; a repository the key may not see answers
 * exactly as a missing one, before any command.
 */
export function lfsTransferCommand(services: LfsTransferServices, log: SshLog): SshCommand {
  return async (context) => {
    const target = lfsCommandTarget('git-lfs-transfer', context.args);
    if ('status' in target) return target;
    const access = async (write: boolean) => {
      const known = context.principal.key;
      const principal = await services.sshKeys.identify(known.fingerprint);
      if (!principal || principal.key.id !== known.id) {
        throw new Forbidden('This key no longer gives access.');
      }
      return lfsSshAccess(services.repos, principal, target.owner, target.name, write);
    };
    // Reading is the least any command needs: who may not read is told nothing more.
    await access(false);
    const session: TransferSession = {
      source: new PacketSource(context.input),
      sink: new PacketSink(context.output, context.signal),
      operation: target.operation,
      services,
      access,
    };
    return serve(session, context, log);
  };
}

async function serve(session: TransferSession, context: SshCommandContext, log: SshLog) {
  const { source, sink } = session;
  try {
    await sink.write(
      Buffer.concat([
        encodePktLine('version=1\n'),
        encodePktLine('locking\n'),
        Buffer.from('0000'),
      ]),
    );
    let negotiated = false;
    for (;;) {
      const packet = await source.next();
      if (!packet) return { status: 0 };
      if (packet.kind !== 'data') throw new FramingError('expected a command');
      const [name = '', ...words] = textOf(packet.payload).split(' ');
      if (name === 'quit') {
        await source.lines('flush');
        await sink.reply({ status: 200 });
        return { status: 0 };
      }
      let reply: TransferReply | undefined;
      if (name === 'version') {
        await source.lines('flush');
        negotiated = words.length === 1 && words[0] === '1';
        reply = negotiated ? { status: 200 } : { status: 400, lines: ['Unsupported version.'] };
      } else {
        const command = COMMANDS.get(name);
        if (!command || !negotiated) {
          await source.skipToFlush();
          const message = command ? 'Negotiate the version first.' : 'Unknown command.';
          reply = { status: 400, lines: [message] };
        } else {
          reply = await command(session, words).catch((error: unknown) => refusal(error, log));
        }
      }
      if (reply) await sink.reply(reply);
    }
  } catch (error) {
    if (!(error instanceof FramingError)) throw error;
    if (!context.signal.aborted) {
      await sink.reply({ status: 400, lines: [error.message] }).catch(() => undefined);
    }
    return { status: 1, message: `git-lfs-transfer: ${error.message}` };
  }
}

/** The reply to a command that failed: its domain error's status and message, or a 500. */
function refusal(error: unknown, log: SshLog): TransferReply {
  if (error instanceof FramingError) throw error;
  if (error instanceof DomainError) {
    return { status: STATUS[error.code] ?? 400, lines: [error.message.replaceAll('\n', ' ')] };
  }
  log.error({ err: error }, 'git-lfs-transfer command failed');
  return { status: 500, lines: ['Internal server error.'] };
}
