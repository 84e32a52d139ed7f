import type { FileHandle } from 'node:fs/promises';

/** Bytes gathered before a write is issued: a few system calls per megabyte, not one per chunk. */
const GATHER_BYTES = 1024 * 1024;
/** Chunks gathered at most before a write (a client may send tiny ones). */
const GATHER_CHUNKS = 256;

/** Writes all of `buffers` at `position`, again from where a short write stopped. */
async function writeAll(file: FileHandle, buffers: Uint8Array[], position: number, size: number) {
  let written = (await file.writev(buffers, position)).bytesWritten;
  if (written === size) return;
  const rest = Buffer.concat(buffers);
  while (written < size) {
    written += (await file.write(rest, written, size - written, position + written)).bytesWritten;
  }
}

/**
 * Writes what `source` yields to `file` from `position`, gathering the network's chunks (64 KiB
 * each from Node's HTTP parser) into one positioned `writev` per megabyte. One write is under
 * way while the next is gathered, and `source` is not read further until that write has ended:
 * memory holds at most two gatherings, and a server pays a few thread-pool round trips per
 * megabyte instead of one per chunk. Returns the bytes written.
 */
export async function writeGathered(
  file: FileHandle,
  position: number,
  source: AsyncIterable<Uint8Array>,
): Promise<number> {
  let gathered: Uint8Array[] = [];
  let gatheredBytes = 0;
  let at = position;
  let writing: Promise<void> | undefined;
  const flush = async () => {
    const buffers = gathered;
    const size = gatheredBytes;
    gathered = [];
    gatheredBytes = 0;
    await writing;
    writing = writeAll(file, buffers, at, size);
    // A failure is seen at the next await of `writing`, never as unhandled.
    writing.catch(() => {});
    at += size;
  };
  try {
    for await (const chunk of source) {
      gathered.push(chunk);
      gatheredBytes += chunk.byteLength;
      if (gatheredBytes >= GATHER_BYTES || gathered.length >= GATHER_CHUNKS) await flush();
    }
    if (gatheredBytes > 0) await flush();
    await writing;
  } finally {
    await writing?.catch(() => {});
  }
  return at - position;
}
