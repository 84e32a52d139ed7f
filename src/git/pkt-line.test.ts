import { describe, expect, it } from 'vitest';
import { decodePktLines, encodePktLine, FLUSH_PKT, PktLineReader } from './pkt-line.ts';
import { PushCommandReader } from './push-commands.ts';

describe('pkt-line', () => {
  it('frames payloads with their length in hex', () => {
    expect(encodePktLine('# service=git-upload-pack\n').toString()).toBe(
      '001e# service=git-upload-pack\n',
    );
    expect(encodePktLine('').toString()).toBe('0004');
    expect(() => encodePktLine(Buffer.alloc(70000))).toThrow(RangeError);
  });

  it('decodes data, flush, delimiter and response-end packets', () => {
    const bytes = Buffer.concat([
      encodePktLine('a\n'),
      FLUSH_PKT,
      Buffer.from('0001'),
      encodePktLine('bc'),
      Buffer.from('0002'),
    ]);
    expect(decodePktLines(bytes)).toEqual([
      { kind: 'data', payload: Buffer.from('a\n') },
      { kind: 'flush' },
      { kind: 'delim' },
      { kind: 'data', payload: Buffer.from('bc') },
      { kind: 'response-end' },
    ]);
  });

  it('waits for whole packets across chunks', () => {
    const reader = new PktLineReader();
    const bytes = encodePktLine('hello world');
    reader.push(bytes.subarray(0, 2));
    expect(reader.next()).toBeUndefined();
    reader.push(bytes.subarray(2, 9));
    expect(reader.next()).toBeUndefined();
    reader.push(bytes.subarray(9));
    expect(reader.next()).toEqual({ kind: 'data', payload: Buffer.from('hello world') });
  });

  it('throws on a malformed length', () => {
    const reader = new PktLineReader();
    reader.push(Buffer.from('zzzz'));
    expect(() => reader.next()).toThrow(/malformed/);
    const short = new PktLineReader();
    short.push(Buffer.from('0003'));
    expect(() => short.next()).toThrow(/malformed/);
  });
});

describe('PushCommandReader', () => {
  const a = 'a'.repeat(40);
  const b = 'b'.repeat(40);
  const zero = '0'.repeat(40);

  /** Feeds chunks until the reader wants no more; how many it took. */
  function read(chunks: Buffer[]) {
    const reader = new PushCommandReader();
    let taken = 0;
    for (const chunk of chunks) {
      taken += 1;
      if (!reader.push(chunk)) break;
    }
    return { reader, taken };
  }

  it('records the commands and wants nothing past the flush', () => {
    const body = Buffer.concat([
      encodePktLine(`shallow ${b}`),
      encodePktLine(`${zero} ${a} refs/heads/new\0report-status side-band-64k agent=git/2.39\n`),
      encodePktLine(`${a} ${b} refs/heads/main\n`),
      encodePktLine(`${b} ${zero} refs/heads/gone\n`),
      FLUSH_PKT,
      Buffer.from('PACK\0\0\0\x02 binary data 0000 not a pkt-line'),
    ]);
    // Fed a byte at a time, as the network might.
    const { reader, taken } = read([...body].map((byte) => Buffer.from([byte])));
    expect(taken).toBe(body.indexOf('PACK'));
    expect(reader.complete).toBe(true);
    expect(reader.commands).toEqual([
      { oldSha: zero, newSha: a, ref: 'refs/heads/new' },
      { oldSha: a, newSha: b, ref: 'refs/heads/main' },
      { oldSha: b, newSha: zero, ref: 'refs/heads/gone' },
    ]);
    expect(reader.capabilities).toEqual(['report-status', 'side-band-64k', 'agent=git/2.39']);
  });

  it('gives up quietly on what it does not understand', () => {
    const body = Buffer.from('garbage that is not pkt-line');
    const { reader, taken } = read([body, body]);
    expect(taken).toBe(1);
    expect(reader.complete).toBe(false);
    expect(reader.commands).toEqual([]);
  });
});
