import { Readable } from 'node:stream';

/**
 * What a file's raw bytes are served under, on the page route and the API alike: nothing a file
 * holds may run or load anything, as if it were a page of this site.
 */
export const RAW_POLICY = "default-src 'none'; sandbox";

/**
 * What a HEAD answer sends in place of `stream`: an empty stream. Fastify answers HEAD with the
 * `Content-Length` set for a stream but reads the stream to its end first; `stream` is destroyed
 * instead, which stops what produces it (a git, a file read) rather than reading a large file
 * for a body nobody receives.
 */
export function withoutBody(stream: Readable): Readable {
  stream.destroy();
  return Readable.from([]);
}
