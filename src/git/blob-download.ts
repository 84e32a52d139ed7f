import type { Readable } from 'node:stream';
import { outputStream, spawnGit } from './command.ts';
import { checkSha } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * A blob's bytes streamed from a `git cat-file blob` of its own, as git writes them, for a file
 * too large to hold in memory for as long as a client takes to read it. Not through the
 * repository's cat-file process: a slow reader would hold every other read of the repository
 * behind it. The stream fails if git does, and stops git when its reader goes away.
 *
 * @throws Invalid when `sha` is not a full object id.
 */
export async function streamBlob(repo: RepoHandle, sha: string): Promise<Readable> {
  checkSha(sha);
  await requireRepository(repo);
  const proc = spawnGit(['cat-file', 'blob', sha], { gitDir: repo.path });
  proc.stdin.end();
  return outputStream(proc);
}
