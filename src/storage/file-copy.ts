import { open } from 'node:fs/promises';

/** What one read takes from a file: large reads, few system calls. */
const COPY_CHUNK = 1024 * 1024;

/**
 * Hands the bytes of `paths`, one file after the other, from `start` of the first and at most
 * `length` of them, to `sink` in
 * two buffers used in turn: the next read fills one while `sink` writes the other, and a buffer
 * is filled again only once `sink` has resolved for it. A 200 MB download then allocates 2 MiB
 * instead of 200 MB of buffers, which in a server's heap set off a full garbage collection every
 * few tens of megabytes.
 */
export async function copyFiles(
  paths: readonly string[],
  start: number,
  sink: (bytes: Buffer) => Promise<void>,
  length = Number.POSITIVE_INFINITY,
): Promise<void> {
  let left = length;
  let buffer = Buffer.allocUnsafeSlow(COPY_CHUNK);
  let spare = Buffer.allocUnsafeSlow(COPY_CHUNK);
  let writing: Promise<void> | undefined;
  try {
    for (const [index, path] of paths.entries()) {
      const file = await open(path, 'r');
      try {
        for (let position = index === 0 ? start : 0; ; [buffer, spare] = [spare, buffer]) {
          const wanted = Math.min(COPY_CHUNK, left);
          const { bytesRead } =
            wanted > 0 ? await file.read(buffer, 0, wanted, position) : { bytesRead: 0 };
          // The other buffer's write ends before this one's begins: the bytes go out in order.
          await writing;
          writing = undefined;
          if (bytesRead === 0) break;
          position += bytesRead;
          left -= bytesRead;
          writing = sink(buffer.subarray(0, bytesRead));
          // Failing while a read is in flight is seen at the next await, never as unhandled.
          writing.catch(() => {});
        }
      } finally {
        await file.close();
      }
    }
    await writing;
  } finally {
    await writing?.catch(() => {});
  }
}
