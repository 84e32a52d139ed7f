import { gzipSync } from 'node:zlib';
import { Code, ConnectError } from '@connectrpc/connect';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyLimitOf } from './body-limits.ts';
import { readBoundedBody } from './bounded-body.ts';

async function* chunksOf(bytes: Buffer, size = 1000): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function codeOf(promise: Promise<unknown>): Promise<Code | 'ok'> {
  return promise.then(
    () => 'ok' as const,
    (error: unknown) => {
      if (!(error instanceof ConnectError)) throw error;
      return error.code;
    },
  );
}

describe('reading a runner request body within its caps', () => {
  it('stops a gzip bomb at the decoded cap', async () => {
    // 24 KB of gzip that inflates to 24 MiB of zeros.
    const bomb = gzipSync(Buffer.alloc(24 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(32 * 1024);
    const limit = { wireBytes: 64 * 1024, decodedBytes: 2 * 1024 * 1024 };
    const failure = await readBoundedBody(chunksOf(bomb), undefined, true, limit).catch((e) => e);
    expect(failure).toBeInstanceOf(ConnectError);
    expect((failure as ConnectError).code).toBe(Code.ResourceExhausted);
    expect((failure as ConnectError).rawMessage).toBe('request body larger than 2097152 bytes');
  });

  it('refuses a declared length over the wire cap before reading a byte', async () => {
    let read = false;
    const payload = (async function* () {
      read = true;
      yield new Uint8Array(1);
    })();
    const limit = { wireBytes: 10, decodedBytes: 10 };
    expect(await codeOf(readBoundedBody(payload, '11', false, limit))).toBe(Code.ResourceExhausted);
    expect(read).toBe(false);
  });

  it('answers bytes that are not gzip with invalid_argument', async () => {
    const limit = { wireBytes: 100, decodedBytes: 100 };
    const garbage = Buffer.from('not gzip at all');
    expect(await codeOf(readBoundedBody(chunksOf(garbage), undefined, true, limit))).toBe(
      Code.InvalidArgument,
    );
  });

  it('accepts exactly the bodies within both caps (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 20_000 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 12_000 }),
        fc.integer({ min: 1, max: 12_000 }),
        fc.integer({ min: 1, max: 4096 }),
        async (size, gzipped, wireBytes, decodedBytes, chunk) => {
          // Half zeros (compressible), half a pattern, so gzip sizes vary.
          const plain = Buffer.alloc(size, 0);
          for (let at = size >> 1; at < size; at++) plain[at] = (at * 31) & 0xff;
          const wire = gzipped && size > 0 ? gzipSync(plain) : plain;
          const limit = { wireBytes, decodedBytes };
          const result = readBoundedBody(chunksOf(wire, chunk), undefined, gzipped, limit);
          const fits = wire.length <= wireBytes && (!gzipped || size <= decodedBytes);
          if (fits) expect((await result).equals(plain)).toBe(true);
          else expect(await codeOf(result)).toBe(Code.ResourceExhausted);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('holds JSON bodies and unknown paths to small caps, and the ceiling over all', () => {
    const updateLog = '/api/actions/runner.v1.RunnerService/UpdateLog';
    expect(bodyLimitOf(updateLog, false, 16 << 20).decodedBytes).toBe(2 << 20);
    expect(bodyLimitOf(updateLog, true, 16 << 20).decodedBytes).toBe(64 * 1024);
    expect(bodyLimitOf(updateLog, false, 1000).wireBytes).toBe(1000);
    expect(bodyLimitOf('/api/actions/x.v1.X/Nope', false, 16 << 20).wireBytes).toBe(4096);
    const register = '/api/actions/runner.v1.RunnerService/Register';
    expect(bodyLimitOf(register, false, 16 << 20).wireBytes).toBeLessThanOrEqual(16 * 1024);
  });
});
