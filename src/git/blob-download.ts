import { Readable } from 'node:stream';
import { outputStream, spawnGit } from './command.ts';
import { checkSha } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * A blob too large for the repository's shared cat-file process (read-objects.ts `readBlob`),
 * read from a `git cat-file blob` of its own instead: a slow reader, or a blob of gigabytes,
 * holds only its own git. The stream fails if git does, and stops git when it is destroyed.
 */

/**
 * The blob's bytes as git writes them, with its first `headBytes` (fewer only if the blob is
 * shorter) already read, for a caller that decides from them how to send the rest; `stream`
 * still yields every byte, the head first.
 *
 * @throws Invalid when `sha` is not a full object id.
 */
export async function streamBlob(
  repo: RepoHandle,
  sha: string,
  headBytes = 0,
): Promise<{ head: Buffer; stream: Readable }> {
  checkSha(sha);
  await requireRepository(repo);
  const proc = spawnGit(['cat-file', 'blob', sha], { gitDir: repo.path });
  proc.stdin.end();
  const stream = outputStream(proc);
  try {
    const head = await readUpTo(stream, headBytes);
    // The whole blob was in its head: git's stream has ended, and what is left to send is that.
    if (stream.readableEnded) return { head, stream: Readable.from([head]) };
    if (head.length > 0) stream.unshift(head);
    return { head, stream };
  } catch (error) {
    stream.destroy();
    throw error;
  }
}

/** The blob's first `bytes` (all of it when shorter); git is stopped once they are read. */
export async function readBlobHead(repo: RepoHandle, sha: string, bytes: number): Promise<Buffer> {
  const { head, stream } = await streamBlob(repo, sha, bytes);
  stream.destroy();
  return head.subarray(0, bytes);
}

/** Reads from `stream` until it has given `bytes` or ended; what was read is not put back. */
function readUpTo(stream: Readable, bytes: number): Promise<Buffer> {
  if (bytes <= 0) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let have = 0;
    const settle = (error?: Error) => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks));
    };
    const onReadable = () => {
      while (have < bytes) {
        const chunk: Buffer | null = stream.read();
        if (chunk === null) break;
        chunks.push(chunk);
        have += chunk.length;
      }
      if (have >= bytes) settle();
    };
    const onEnd = () => settle();
    const onError = (error: Error) => settle(error);
    const onClose = () => settle(new Error('the blob stream closed before its head was read'));
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}
