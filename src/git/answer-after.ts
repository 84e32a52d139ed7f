import { Readable } from 'node:stream';
import { encodePktLine } from './pkt-line.ts';

/** Lines for the pushing client to show as `remote: …`, and whether it can be sent any. */
export type PushNotes = {
  /** Whether the client reads its answer in side-band channels (asked once the answer ends). */
  readonly sideband: () => boolean;
  /**
   * Whether the client has sent its commands. Before that, what git writes (a conversation's
   * advertisement, which ends with a flush its client waits for) passes whole; only the answer
   * to the commands has its last bytes held back.
   */
  readonly commandsRead: () => boolean;
  /** The lines, asked for after `settle`; a failure sends none. */
  readonly lines: () => Promise<readonly string[]>;
};

const FLUSH = Buffer.from('0000');
const PROGRESS_CHANNEL = 2;

/** One line on side-band channel 2, which git prints to the pusher's terminal as `remote: …`. */
function progressPacket(line: string): Buffer {
  return encodePktLine(
    Buffer.concat([Buffer.from([PROGRESS_CHANNEL]), Buffer.from(`${line}\n`, 'utf8')]),
  );
}

/**
 * `output` passed on unchanged, except that its end waits for `settle`. A git client takes a push
 * as done only when the HTTP answer ends, so work done in `settle` (keeping HEAD on a branch that
 * exists) is complete before the client, or anything it starts next, can look. `settle` must not
 * reject; the answer ends either way.
 *
 * With `notes`, once the client has sent its commands the last four bytes are held back: when
 * the answer is side-band and they are its final flush, the notes go on channel 2 just before
 * it, the place where git relays what hooks print; any other ending (no side-band, a push cut
 * short) is passed on untouched. So a stateless answer (smart HTTP) and a whole conversation
 * (SSH) end alike.
 */
export function answerAfter(
  output: Readable,
  settle: () => Promise<void>,
  notes?: PushNotes,
): Readable {
  async function* relay(): AsyncGenerator<Buffer> {
    let held: Buffer = Buffer.alloc(0);
    for await (const chunk of output) {
      if (!notes) {
        yield chunk as Buffer;
        continue;
      }
      const all = held.length === 0 ? (chunk as Buffer) : Buffer.concat([held, chunk as Buffer]);
      const keep = notes.commandsRead() ? Math.min(FLUSH.length, all.length) : 0;
      if (all.length > keep) yield all.subarray(0, all.length - keep);
      held = all.subarray(all.length - keep);
    }
    await settle();
    if (notes && held.equals(FLUSH) && notes.sideband()) {
      const lines = await notes.lines().catch(() => []);
      for (const line of lines) yield progressPacket(line);
    }
    if (held.length > 0) yield held;
  }
  return Readable.from(relay(), { objectMode: false });
}
