import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { encodePktLine, MAX_PKT_PAYLOAD, type Packet, PktLineReader } from '../git/pkt-line.ts';

/** Most arguments one command of `git-lfs-transfer` may carry (git-lfs sends three or four). */
const MAX_ARGUMENTS = 64;

/**
 * Input that breaks the framing of `git-lfs-transfer` (a bad length, a stream cut inside a
 * packet, a packet where another kind must come): the session cannot find the next command
 * after it, so it answers with an error status and ends.
 */
export class FramingError extends Error {}

/**
 * The packets a client sends, pulled one at a time as the session asks for them: nothing is
 * read ahead of what the session consumes, so a client that sends faster than Kiln stores
 * waits (the SSH window closes) and memory holds at most a packet and a chunk.
 */
export class PacketSource {
  readonly #decoder = new PktLineReader();
  readonly #chunks: AsyncIterator<Buffer>;

  constructor(input: Readable) {
    this.#chunks = input[Symbol.asyncIterator]();
  }

  /** The next packet; undefined when the stream ended between packets. */
  async next(): Promise<Packet | undefined> {
    for (;;) {
      let packet: Packet | undefined;
      try {
        packet = this.#decoder.next();
      } catch {
        throw new FramingError('malformed pkt-line length');
      }
      if (packet) return packet;
      const chunk = await this.#chunks.next();
      if (chunk.done) {
        if (this.#decoder.hasPartial()) throw new FramingError('the stream ended inside a packet');
        return undefined;
      }
      this.#decoder.push(chunk.value);
    }
  }

  /** The next packet, which must be there: the stream ending here is a framing error. */
  async required(): Promise<Packet> {
    const packet = await this.next();
    if (!packet) throw new FramingError('the stream ended inside a command');
    return packet;
  }

  /**
   * Text packets up to the next flush (or delimiter, with `until: 'delim'`), at most `most` of
   * them: a command's arguments, or the object lines of a batch. Reading to a flush passes over
   * a delimiter: the proposal puts one in `lock`, git-lfs does not.
   */
  async lines(until: 'flush' | 'delim', most = MAX_ARGUMENTS): Promise<string[]> {
    const lines: string[] = [];
    for (;;) {
      const packet = await this.required();
      if (packet.kind === until) return lines;
      if (packet.kind === 'delim') continue;
      if (packet.kind !== 'data') throw new FramingError(`expected a text packet or a ${until}`);
      if (lines.length >= most) throw new FramingError('too many lines in one command');
      lines.push(textOf(packet.payload));
    }
  }

  /** Skips packets up to the next flush: the rest of a command that is refused. */
  async skipToFlush(): Promise<void> {
    for (;;) {
      const packet = await this.required();
      if (packet.kind === 'flush') return;
    }
  }
}

/** A text packet's payload without its one trailing newline. */
export function textOf(payload: Buffer): string {
  const text = payload.toString('utf8');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** `key=value` arguments by key; a packet with no `=` names a key with an empty value. */
export function argumentsOf(lines: readonly string[]): Map<string, string> {
  const args = new Map<string, string>();
  for (const line of lines) {
    const at = line.indexOf('=');
    if (at < 0) args.set(line, '');
    else args.set(line.slice(0, at), line.slice(at + 1));
  }
  return args;
}

/** What one command answers: a status, its arguments and, after a delimiter, text lines. */
export type TransferReply = {
  readonly status: number;
  readonly args?: readonly string[];
  readonly lines?: readonly string[];
};

/** Writes what the session answers, waiting whenever the client's window is full. */
export class PacketSink {
  readonly #output: Writable;
  readonly #signal: AbortSignal;

  constructor(output: Writable, signal: AbortSignal) {
    this.#output = output;
    this.#signal = signal;
  }

  /** Writes `bytes` and resolves once the channel may take more. */
  async write(bytes: Buffer): Promise<void> {
    if (this.#output.write(bytes)) return;
    await once(this.#output, 'drain', { signal: this.#signal });
  }

  /** A whole reply: `status NNN`, its arguments, its lines after a delimiter, a flush. */
  reply(reply: TransferReply): Promise<void> {
    const packets = [encodePktLine(`status ${reply.status}\n`)];
    for (const arg of reply.args ?? []) packets.push(encodePktLine(`${arg}\n`));
    if (reply.lines) {
      packets.push(Buffer.from('0001'));
      for (const line of reply.lines) packets.push(encodePktLine(`${line}\n`));
    }
    packets.push(Buffer.from('0000'));
    return this.write(Buffer.concat(packets));
  }

  /**
   * Writes `bytes` and resolves once the channel has taken them (its write callback): only then
   * may their memory be used again. Rejects when the session is aborted, since a channel that
   * has closed never calls back.
   */
  #writeAndRelease(bytes: Buffer): Promise<void> {
    const signal = this.#signal;
    if (signal.aborted) return Promise.reject(new Error('the channel has closed'));
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new Error('the channel has closed'));
      signal.addEventListener('abort', onAbort, { once: true });
      this.#output.write(bytes, (error) => {
        signal.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve();
      });
    });
  }

  /**
   * `status 200`, the arguments, a delimiter, the bytes `copy` hands over as data packets, a
   * flush. Each chunk is framed into one buffer kept for the whole reply (grown only for a
   * larger chunk) and written in one call, and the sink resolves once the channel has taken
   * it: a reply of any size allocates one framed chunk, not one per chunk, and `copy` reads the
   * next chunk while this one goes out.
   */
  async replyWithCopy(
    args: readonly string[],
    copy: (sink: (bytes: Buffer) => Promise<void>) => Promise<void>,
  ): Promise<void> {
    const head = [encodePktLine('status 200\n'), ...args.map((arg) => encodePktLine(`${arg}\n`))];
    await this.write(Buffer.concat([...head, Buffer.from('0001')]));
    let framing = Buffer.alloc(0);
    await copy(async (bytes) => {
      if (bytes.byteLength === 0) return;
      const size = framedSize(bytes.byteLength);
      if (framing.byteLength < size) framing = Buffer.allocUnsafeSlow(size);
      return this.#writeAndRelease(frameInto(bytes, framing));
    });
    await this.write(Buffer.from('0000'));
  }
}

/** The bytes `count` bytes take as data packets, each with its 4-byte length. */
function framedSize(count: number): number {
  return count + 4 * Math.ceil(count / MAX_PKT_PAYLOAD);
}

/** `bytes` cut into data packets, written at the start of `out`; the part of `out` filled. */
function frameInto(bytes: Uint8Array, out: Buffer): Buffer {
  let at = 0;
  for (let from = 0; from < bytes.byteLength; from += MAX_PKT_PAYLOAD) {
    const piece = bytes.subarray(from, from + MAX_PKT_PAYLOAD);
    out.write((piece.byteLength + 4).toString(16).padStart(4, '0'), at, 'latin1');
    out.set(piece, at + 4);
    at += piece.byteLength + 4;
  }
  return out.subarray(0, at);
}
