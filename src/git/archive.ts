import type { Readable } from 'node:stream';
import type { CatFilePool } from './cat-file-pool.ts';
import { outputStream, spawnGit } from './command.ts';
import { resolveCommit } from './refs.ts';
import type { RepoHandle } from './repo-paths.ts';

export type ArchiveFormat = 'zip' | 'tar.gz';

export interface Archive {
  /** The commit archived. */
  readonly commitSha: string;
  /** `{name}-{ref with slashes as dashes}.zip|.tar.gz`, also the top directory inside. */
  readonly fileName: string;
  /** The archive bytes; fails if git fails part-way, and stops git when destroyed. */
  readonly stream: Readable;
}

/**
 * A source archive of a revision, streamed from `git archive` (tar.gz compressed by git's own
 * gzip). The revision is resolved first, so an unknown one is NotFound before any byte exists.
 *
 * @example
 *   const archive = await createArchive(pool, repo, { revision: 'v1.0', format: 'zip' });
 *   reply.header('content-disposition', `attachment; filename="${archive.fileName}"`).send(archive.stream);
 */
export async function createArchive(
  pool: CatFilePool,
  repo: RepoHandle,
  options: { revision: string; format: ArchiveFormat; signal?: AbortSignal },
): Promise<Archive> {
  const commitSha = await resolveCommit(pool, repo, options.revision);
  const base = `${repo.ref.name}-${options.revision.replaceAll('/', '-')}`;
  const format = options.format === 'zip' ? 'zip' : 'tar.gz';
  const proc = spawnGit(['archive', `--format=${format}`, `--prefix=${base}/`, commitSha], {
    gitDir: repo.path,
    signal: options.signal,
  });
  proc.stdin.end();
  return { commitSha, fileName: `${base}.${format}`, stream: outputStream(proc) };
}
