import { Invalid } from '../domain/errors.ts';
import type { CatFilePool } from './cat-file-pool.ts';
import { runGit } from './command.ts';
import { type Commit, readCommit } from './read-objects.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/** A pushed commit with the paths it added, removed and modified against its first parent. */
export type PushedCommit = {
  readonly commit: Commit;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly modified: readonly string[];
};

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The commits a ref update brought (`tip` and its ancestors not reachable from `exclude`),
 * newest first, at most `limit`, each with its changed paths: one `git log --name-status` for
 * the file lists (renames as delete + add, as Gitea reports them), then the commits through
 * cat-file. Merge commits list no paths, as `git log` shows none without `-m`.
 */
export async function pushedCommits(
  pool: CatFilePool,
  repo: RepoHandle,
  tip: string,
  exclude: string | null,
  limit: number,
): Promise<PushedCommit[]> {
  if (!OBJECT_ID.test(tip) || (exclude !== null && !OBJECT_ID.test(exclude))) {
    throw new Invalid('commit ids must be full hexadecimal object ids');
  }
  await requireRepository(repo);
  const args = [
    'log',
    '--no-renames',
    '--name-status',
    '--format=format:%x01%H',
    '-z',
    `--max-count=${Math.max(0, Math.floor(limit))}`,
    tip,
    ...(exclude ? [`^${exclude}`] : []),
    '--',
  ];
  const { stdout } = await runGit(args, { gitDir: repo.path });
  const entries = stdout
    .toString('utf8')
    .split('\x01')
    .filter((chunk) => chunk.length > 0)
    .map(parseEntry);
  return Promise.all(
    entries.map(async (entry) => ({
      ...entry.files,
      commit: await readCommit(pool, repo, entry.sha),
    })),
  );
}

function parseEntry(chunk: string) {
  const newline = chunk.indexOf('\n');
  const sha = (newline < 0 ? chunk : chunk.slice(0, newline)).replace(/\0/g, '').trim();
  const fields = newline < 0 ? [] : chunk.slice(newline + 1).split('\0');
  const added: string[] = [];
  const removed: string[] = [];
  const modified: string[] = [];
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const status = fields[at] ?? '';
    const path = fields[at + 1] ?? '';
    if (status === '') break;
    if (status === 'A') added.push(path);
    else if (status === 'D') removed.push(path);
    else modified.push(path);
  }
  return { sha, files: { added, removed, modified } };
}
