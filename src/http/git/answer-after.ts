import { Readable } from 'node:stream';

/**
 * `output` passed on unchanged, except that its end waits for `settle`. A git client takes a push
 * as done only when the HTTP answer ends, so work done in `settle` (keeping HEAD on a branch that
 * exists) is complete before the client, or anything it starts next, can look. `settle` must not
 * reject; the answer ends either way.
 */
export function answerAfter(output: Readable, settle: () => Promise<void>): Readable {
  async function* relay(): AsyncGenerator<Buffer> {
    for await (const chunk of output) yield chunk as Buffer;
    await settle();
  }
  return Readable.from(relay(), { objectMode: false });
}
