/**
 * Git's pkt-line framing: four hex digits of length (including themselves) and the payload;
 * `0000` flush, `0001` delimiter and `0002` response-end (protocol v2) carry no payload.
 */

export const FLUSH_PKT = Buffer.from('0000');
export const MAX_PKT_PAYLOAD = 65516;

export type Packet =
  | { readonly kind: 'data'; readonly payload: Buffer }
  | { readonly kind: 'flush' }
  | { readonly kind: 'delim' }
  | { readonly kind: 'response-end' };

/** Frames one payload. */
export function encodePktLine(payload: string | Buffer): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  if (bytes.length > MAX_PKT_PAYLOAD) throw new RangeError('pkt-line payload too long');
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
}

const SPECIAL: Record<number, Packet> = {
  0: { kind: 'flush' },
  1: { kind: 'delim' },
  2: { kind: 'response-end' },
};

/**
 * An incremental decoder: feed it chunks as they arrive, take whole packets out. It throws on a
 * malformed length, after which it should be dropped.
 *
 * @example
 *   const reader = new PktLineReader();
 *   reader.push(chunk);
 *   for (let p = reader.next(); p; p = reader.next()) …
 */
export class PktLineReader {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
  }

  /** Whether bytes of a packet not yet whole are held (a stream ending now ends mid-packet). */
  hasPartial(): boolean {
    return this.buffered.length > 0;
  }

  /** The next whole packet, or undefined until more bytes arrive. */
  next(): Packet | undefined {
    if (this.buffered.length < 4) return undefined;
    const header = this.buffered.toString('latin1', 0, 4);
    if (!/^[0-9a-f]{4}$/i.test(header)) throw new Error('malformed pkt-line length');
    const length = Number.parseInt(header, 16);
    const special = SPECIAL[length];
    if (special) {
      this.buffered = this.buffered.subarray(4);
      return special;
    }
    if (length < 4) throw new Error('malformed pkt-line length');
    if (this.buffered.length < length) return undefined;
    const payload = this.buffered.subarray(4, length);
    this.buffered = this.buffered.subarray(length);
    return { kind: 'data', payload };
  }
}

/** Decodes a whole buffer of packets (ignoring an incomplete tail). */
export function decodePktLines(data: Buffer): Packet[] {
  const reader = new PktLineReader();
  reader.push(data);
  const packets: Packet[] = [];
  for (let packet = reader.next(); packet; packet = reader.next()) packets.push(packet);
  return packets;
}
