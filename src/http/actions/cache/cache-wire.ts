import type { ByteRange } from '../../../domain/ci/cache/cache-blobs.ts';
import { Invalid, TooLarge } from '../../../domain/errors.ts';
import { isRecord } from '../../../lib/narrow.ts';

/** Largest JSON body of the protocol (a key, a version and a size need far less). */
const MAX_JSON_BYTES = 64 * 1024;

/** Reads a small JSON object body; Invalid for anything else, TooLarge past 64 KiB. */
export async function readJsonObject(
  body: AsyncIterable<Uint8Array>,
): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += chunk.length;
    if (length > MAX_JSON_BYTES) throw new TooLarge('the request body is too large');
    chunks.push(Buffer.from(chunk));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Invalid('the request body is not JSON');
  }
  if (!isRecord(parsed)) throw new Invalid('the request body is not a JSON object');
  return parsed;
}

/** A non-negative safe integer field, or undefined when absent. */
export function sizeField(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new Invalid(`"${name}" is not a size in bytes`);
  }
  return value;
}

/** A string field; Invalid when absent or not a string. */
export function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string') throw new Invalid(`"${name}" is missing`);
  return value;
}

const DIGITS = '(\\d{1,15})';

/** `Content-Range: bytes s-e/*` (or `/total`) of an upload part. */
export function parseContentRange(header: string | undefined): ByteRange {
  const match = new RegExp(`^bytes ${DIGITS}-${DIGITS}/(\\*|\\d{1,15})$`).exec(header ?? '');
  if (!match) throw new Invalid('Content-Range must read "bytes start-end/*"');
  const start = Number(match[1]);
  const end = Number(match[2]);
  if (end < start) throw new Invalid('Content-Range ends before it starts');
  return { start, end };
}

/**
 * A download's single `Range: bytes=s-e`, `bytes=s-` or `bytes=-n` against an archive of `size`
 * bytes; undefined for no (or an unusable multi-part) range, which is served whole.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const match = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Math.min(Number(match[2]), size);
    return { start: size - suffix, end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return { start, end };
}

/** The id in a path, an entry id: a positive safe integer. */
export function entryId(text: string): number {
  const id = Number(text);
  if (!/^\d{1,15}$/.test(text) || !Number.isSafeInteger(id) || id < 1) {
    throw new Invalid('the cache id is not a number');
  }
  return id;
}
