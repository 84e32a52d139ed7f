import { createGunzip } from 'node:zlib';
import { Code, ConnectError } from '@connectrpc/connect';
import type { BodyLimit } from './body-limits.ts';

/**
 * Reads a request body within `limit`: at most `wireBytes` as received and, when `gzipped`, at
 * most `decodedBytes` once inflated. Either cap passed is `resource_exhausted`; bytes that are
 * not gzip are `invalid_argument`.
 *
 * A declared `Content-Length` over the cap is refused before a byte is read. The inflater is a
 * stream run on zlib's thread pool that is destroyed as soon as its output passes the cap, so a
 * small gzip body that would inflate to gigabytes costs at most the cap and never the main
 * thread: nothing here inflates a whole body in one call.
 */
export async function readBoundedBody(
  payload: AsyncIterable<Uint8Array>,
  declaredLength: string | undefined,
  gzipped: boolean,
  limit: BodyLimit,
): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > limit.wireBytes) {
    throw tooLarge(limit.wireBytes);
  }
  const wire = await readAtMost(payload, limit.wireBytes);
  if (!gzipped || wire.length === 0) return wire;
  return inflateAtMost(wire, limit.decodedBytes);
}

function tooLarge(maxBytes: number): ConnectError {
  return new ConnectError(`request body larger than ${maxBytes} bytes`, Code.ResourceExhausted);
}

async function readAtMost(payload: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of payload) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  // A body that came in one chunk (most, on a local network) is used as it is, not copied.
  const [only] = chunks;
  if (chunks.length === 1 && only !== undefined) {
    return Buffer.from(only.buffer, only.byteOffset, only.byteLength);
  }
  return Buffer.concat(chunks, size);
}

/** Gunzips `body`, stopping the inflater as soon as its output passes `maxBytes`. */
function inflateAtMost(body: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const inflater = createGunzip();
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: ConnectError) => {
      if (settled) return;
      settled = true;
      inflater.destroy();
      reject(error);
    };
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) fail(tooLarge(maxBytes));
      else chunks.push(chunk);
    });
    inflater.on('error', () =>
      fail(new ConnectError('request body is not valid gzip', Code.InvalidArgument)),
    );
    inflater.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    inflater.end(body);
  });
}
