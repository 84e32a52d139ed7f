import { Invalid } from '../domain/errors.ts';
import { MAX_BATCH_OBJECTS } from '../domain/lfs/lfs.service.ts';
import type { TransferCommand } from './lfs-transfer-session.ts';
import { argumentsOf, FramingError } from './lfs-transfer-wire.ts';

/** A decimal size as git-lfs writes it; anything else is not a size. */
const SIZE = /^(0|[1-9][0-9]{0,15})$/;

function sizeOf(text: string | undefined): number | undefined {
  if (text === undefined || !SIZE.test(text)) return undefined;
  const size = Number(text);
  return Number.isSafeInteger(size) ? size : undefined;
}

function requiredSize(text: string | undefined): number {
  const size = sizeOf(text);
  if (size === undefined) throw new Invalid('The command needs the size of the object.');
  return size;
}

/**
 * `batch`: the batch API's question in lines (`oid size`), answered with one line per object
 * and what to do with it (`upload`, `download`, or `noop` when there is nothing to do: an
 * upload the repository has, a download it lacks, as other pure SSH servers answer). An object
 * the batch API would refuse (an invalid id, too large) refuses the whole batch with its
 * message, since the protocol has no error per object.
 */
export const batch: TransferCommand = async (session) => {
  const args = argumentsOf(await session.source.lines('delim'));
  const lines = await session.source.lines('flush', MAX_BATCH_OBJECTS);
  const algorithm = args.get('hash-algo');
  if (algorithm !== undefined && algorithm !== 'sha256') {
    throw new Invalid(`Unsupported hash algorithm: ${algorithm.slice(0, 40)}.`);
  }
  const objects = lines.map((line) => {
    const [oid, size] = line.split(' ');
    return { oid, size: sizeOf(size) };
  });
  const upload = session.operation === 'upload';
  const { visible } = await session.access(upload);
  const answers = await session.services.lfs.batch(visible.repo, session.operation, objects);
  const answered: string[] = [];
  for (const [index, answer] of answers.entries()) {
    if (!('error' in answer)) {
      const action = answer.action === 'none' ? 'noop' : answer.action;
      answered.push(`${answer.oid} ${answer.size} ${action}`);
    } else if (answer.error === 'missing') {
      answered.push(`${answer.oid} ${objects[index]?.size ?? 0} noop`);
    } else {
      throw new Invalid(answer.message);
    }
  }
  return { status: 200, args: ['hash-algo=sha256'], lines: answered };
};

/**
 * `put-object OID`: `size=N`, a delimiter, the object's bytes in data packets, a flush. The
 * bytes stream to storage as they come (LfsService.upload hashes them and keeps them only when
 * they are the object at its size). Refused or not, the command is read to its flush, so the
 * session stays in step with the client.
 */
export const putObject: TransferCommand = async (session, words) => {
  const { source } = session;
  const args = argumentsOf(await source.lines('delim'));
  let ended = false;
  async function* data() {
    for (;;) {
      const packet = await source.required();
      if (packet.kind === 'flush') {
        ended = true;
        return;
      }
      if (packet.kind !== 'data') throw new FramingError('expected object data or a flush');
      yield packet.payload;
    }
  }
  try {
    const size = requiredSize(args.get('size'));
    const { visible } = await session.access(true);
    await session.services.lfs.upload(visible.repo, words[0] ?? '', data(), size);
  } catch (error) {
    // What a refused upload left unread is skipped, unless the framing itself broke.
    if (!ended && !(error instanceof FramingError)) await source.skipToFlush();
    throw error;
  }
  // An upload stops reading at its declared size; anything sent past it makes it fail above.
  if (!ended) await source.skipToFlush();
  return { status: 200 };
};

/** `verify-object OID` with `size=N` (or the proposal's `verify-object OID SIZE`). */
export const verifyObject: TransferCommand = async (session, words) => {
  const args = argumentsOf(await session.source.lines('flush'));
  const size = requiredSize(args.get('size') ?? words[1]);
  const { visible } = await session.access(true);
  await session.services.lfs.verify(visible.repo, words[0], size);
  return { status: 200 };
};

/**
 * `get-object OID`: `status 200`, `size=N`, a delimiter, the bytes in data packets, a flush.
 * The object is read in reused buffers and framed into one reused buffer per reply, each
 * write waiting for the channel to take it: memory stays bounded whatever the object's size.
 */
export const getObject: TransferCommand = async (session, words) => {
  await session.source.lines('flush');
  const { visible } = await session.access(false);
  const { size, copy } = await session.services.lfs.locate(visible.repo, words[0] ?? '');
  try {
    await session.sink.replyWithCopy([`size=${size}`], (sink) => copy(0, sink));
  } catch {
    // Half an object has gone out: nothing after it could be read as a reply any more.
    throw new FramingError('the object could not be sent whole');
  }
  return undefined;
};
